import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { OAuthApplicationsService } from '@kw/contracts';
import { NoStore } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import {
  ApplicationDto,
  ApplicationListDto,
  CreateApplicationDto,
  CreatedApplicationDto,
  RotatedSecretDto,
  RotateApplicationSecretDto,
  toApplicationDto,
  UpdateApplicationDto,
} from './dto/oauth.dto.js';

const DEFAULT_OVERLAP_HOURS = 24;

/** Your OAuth applications (docs/oauth-applications.md). Scope `applications:manage`. */
@ApiTags('OAuth applications')
@Controller('api/applications')
export class ApplicationsController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: 'List your applications',
    description: 'Secrets are never listed, only their first characters.',
  })
  @ApiOkResponse({ type: ApplicationListDto })
  async list(): Promise<ApplicationListDto> {
    const { applications } = await this.client.call(OAuthApplicationsService.method.listApplications, {});
    return { applications: applications.map(toApplicationDto) };
  }

  @Post()
  @HttpCode(201)
  @NoStore()
  @ApiOperation({
    summary: 'Register an application',
    description: 'A confidential client gets its secret in this response only; a public client has none (PKCE).',
  })
  @ApiCreatedResponse({ type: CreatedApplicationDto })
  async create(@Body() body: CreateApplicationDto): Promise<CreatedApplicationDto> {
    const created = await this.client.call(OAuthApplicationsService.method.createApplication, {
      name: body.name,
      description: body.description ?? '',
      homepageUrl: body.homepageUrl,
      redirectUris: body.redirectUris,
      clientType: body.clientType ?? 'confidential',
      scopes: body.scopes ?? [],
    });
    return { application: toApplicationDto(created.application!), clientSecret: created.clientSecret };
  }

  @Get(':id')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Read an application' })
  @ApiOkResponse({ type: ApplicationDto })
  @ApiNotFoundResponse({ description: 'No such application of yours' })
  async get(@Param('id') id: string): Promise<ApplicationDto> {
    return toApplicationDto(
      (await this.client.call(OAuthApplicationsService.method.getApplication, { id })).application!,
    );
  }

  @Patch(':id')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Update an application',
    description:
      '`status: disabled` stops new authorizations, token requests and its live access tokens at once (grants are ' +
      'kept); `active` resumes.',
  })
  @ApiOkResponse({ type: ApplicationDto })
  @ApiNotFoundResponse({ description: 'No such application of yours' })
  async update(@Param('id') id: string, @Body() body: UpdateApplicationDto): Promise<ApplicationDto> {
    const { application } = await this.client.call(OAuthApplicationsService.method.updateApplication, {
      id,
      name: body.name,
      description: body.description,
      homepageUrl: body.homepageUrl,
      redirectUris: body.redirectUris ? { values: body.redirectUris } : undefined,
      scopes: body.scopes ? { values: body.scopes } : undefined,
      status: body.status,
    });
    return toApplicationDto(application!);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Delete an application', description: 'Every grant made through it is revoked at once.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: 'No such application of yours' })
  async delete(@Param('id') id: string): Promise<void> {
    await this.client.call(OAuthApplicationsService.method.deleteApplication, { id });
  }

  @Post(':id/secret')
  @HttpCode(201)
  @NoStore()
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: "Rotate a confidential application's secret",
    description:
      'The new secret is in this response only; the previous one keeps working for `overlapHours` (default 24).',
  })
  @ApiCreatedResponse({ type: RotatedSecretDto })
  @ApiNotFoundResponse({ description: 'No such application of yours' })
  async rotate(@Param('id') id: string, @Body() body: RotateApplicationSecretDto): Promise<RotatedSecretDto> {
    const rotated = await this.client.call(OAuthApplicationsService.method.rotateApplicationSecret, {
      id,
      overlapHours: body.overlapHours ?? DEFAULT_OVERLAP_HOURS,
    });
    return { application: toApplicationDto(rotated.application!), clientSecret: rotated.clientSecret };
  }
}
