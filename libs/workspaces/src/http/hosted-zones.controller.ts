import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HostedZonesService } from '@kw/contracts';
import { NoStore } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import {
  CreateHostedZoneDto,
  HostedZoneEnrollmentDto,
  HostedZoneListDto,
  HostedZoneResponseDto,
  HostedZoneDeletedDto,
  DeleteHostedZoneQueryDto,
  UpdateHostedZoneDto,
} from './dto/hosted-zones.dto.js';
import { hostedZoneJson } from './presenters.js';

const M = HostedZonesService.method;

/**
 * Hosted zones of the caller (scope `hosted-zones:manage`, and a credential for all of the
 * caller's workspaces; platform administrators see all). Another user's zone answers 404 like a
 * missing one. docs/hosted-zones.md.
 */
@ApiTags('Hosted zones')
@Controller('api/hosted-zones')
export class HostedZonesController {
  constructor(private readonly client: ServiceClient) {}

  @Post()
  @NoStore()
  @ApiOperation({
    summary: 'Create a hosted zone',
    description:
      'Answers the one-time enrollment token a Leaf starts with (`ENROLLMENT_TOKEN`), valid 24 hours. Scope `hosted-zones:manage`.',
  })
  @ApiCreatedResponse({ type: HostedZoneEnrollmentDto })
  async create(@Body() body: CreateHostedZoneDto): Promise<HostedZoneEnrollmentDto> {
    const answer = await this.client.call(M.createHostedZone, {
      name: body.name,
      region: body.region,
      endpointUrl: body.endpointUrl ?? '',
    });
    return {
      success: true,
      hostedZone: hostedZoneJson(answer.hostedZone),
      enrollmentToken: answer.enrollmentToken,
      enrollmentTokenExpiresAt: answer.enrollmentTokenExpiresAt,
    };
  }

  @Get()
  @ApiOperation({ summary: "List the caller's hosted zones", description: 'Scope `hosted-zones:manage`.' })
  @ApiOkResponse({ type: HostedZoneListDto })
  async list(): Promise<HostedZoneListDto> {
    const { hostedZones } = await this.client.call(M.listHostedZones, {});
    const items = hostedZones.map(hostedZoneJson);
    return { success: true, items, count: items.length };
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Read a hosted zone',
    description: 'Status, endpoint, last heartbeat, Leaf version and placed workspaces. Scope `hosted-zones:manage`.',
  })
  @ApiOkResponse({ type: HostedZoneResponseDto })
  async get(@Param('id') id: string): Promise<HostedZoneResponseDto> {
    const { hostedZone } = await this.client.call(M.getHostedZone, { hostedZoneId: id });
    return { success: true, hostedZone: hostedZoneJson(hostedZone) };
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update a hosted zone',
    description: 'name, region, endpointUrl (`null` clears it). Scope `hosted-zones:manage`.',
  })
  @ApiOkResponse({ type: HostedZoneResponseDto })
  async update(@Param('id') id: string, @Body() body: UpdateHostedZoneDto): Promise<HostedZoneResponseDto> {
    const endpointUrl = body.endpointUrl === null ? '' : body.endpointUrl;
    const { hostedZone } = await this.client.call(M.updateHostedZone, {
      hostedZoneId: id,
      name: body.name,
      region: body.region,
      endpointUrl,
    });
    return { success: true, hostedZone: hostedZoneJson(hostedZone) };
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete a hosted zone',
    description:
      '409 `CONFLICT` while live workspaces are placed on it (move or archive them first). Archived ones, whose ' +
      'data lived on its Leaf, are deleted with it only with `deleteArchivedWorkspaces=true` (otherwise 409 ' +
      'naming how many). Scope `hosted-zones:manage`.',
  })
  @ApiOkResponse({ type: HostedZoneDeletedDto })
  async delete(@Param('id') id: string, @Query() query: DeleteHostedZoneQueryDto): Promise<HostedZoneDeletedDto> {
    const { deletedWorkspaceIds } = await this.client.call(M.deleteHostedZone, {
      hostedZoneId: id,
      deleteArchivedWorkspaces: query.deleteArchivedWorkspaces ?? false,
    });
    return { success: true, deletedWorkspaceIds };
  }

  @Post(':id/enrollment-token')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Issue a new enrollment token',
    description:
      'For a Leaf that lost its state: enrolling with the new token replaces the zone credential (the old ' +
      'Leaf stops being accepted). Scope `hosted-zones:manage`.',
  })
  @ApiOkResponse({ type: HostedZoneEnrollmentDto })
  async resetEnrollment(@Param('id') id: string): Promise<HostedZoneEnrollmentDto> {
    const answer = await this.client.call(M.resetEnrollment, { hostedZoneId: id });
    return {
      success: true,
      hostedZone: hostedZoneJson(answer.hostedZone),
      enrollmentToken: answer.enrollmentToken,
      enrollmentTokenExpiresAt: answer.enrollmentTokenExpiresAt,
    };
  }
}
