import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspacesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { DISCOVER_LIMIT_DEFAULT } from '../workspaces-limits.js';
import { DiscoverQueryDto } from './dto/query.dto.js';
import { UpdateWorkspaceSettingsDto, WorkspaceSettingsResponseDto } from './dto/settings.dto.js';
import {
  CreateWorkspaceDto,
  DiscoverPageDto,
  UpdateWorkspaceDto,
  WorkspaceListDto,
  WorkspaceResponseDto,
} from './dto/workspace.dto.js';
import { list, settingsJson, workspaceJson } from './presenters.js';

const M = WorkspacesService.method;

/**
 * Workspaces: validated here, decided by the workspaces service (which re-checks every call
 * with the access policy). `{id}` that is not a UUID answers 404 like an unknown id.
 */
@ApiTags('Workspaces')
@Controller('api/workspaces')
export class WorkspacesController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: "List the caller's workspaces",
    description: 'Workspaces the caller is a member of, with the role. Scope `workspaces:read`.',
  })
  @ApiOkResponse({ type: WorkspaceListDto })
  async listMine(): Promise<WorkspaceListDto> {
    const { workspaces } = await this.client.call(M.listMyWorkspaces, {});
    return list(workspaces.map(workspaceJson));
  }

  @Post()
  @ApiOperation({
    summary: 'Create a workspace',
    description:
      'The caller becomes its owner. Scope `workspaces:write`. With `hostedZoneId` the workspace is placed ' +
      'on that hosted zone (`status: processing` until its Leaf is ready; see docs/hosted-zones.md).',
  })
  @ApiCreatedResponse({ type: WorkspaceResponseDto })
  async create(@Body() body: CreateWorkspaceDto): Promise<WorkspaceResponseDto> {
    const { workspace } = await this.client.call(M.createWorkspace, {
      name: body.name,
      description: body.description ?? '',
      visibility: body.visibility ?? 'private',
      hostedZoneId: body.hostedZoneId,
    });
    return { workspace: workspaceJson(workspace) };
  }

  @Get('accessible')
  @ApiOperation({
    summary: 'List accessible workspaces',
    description: "Member workspaces and subscribed public ones, with the caller's relation. Scope `workspaces:read`.",
  })
  @ApiOkResponse({ type: WorkspaceListDto })
  async listAccessible(): Promise<WorkspaceListDto> {
    const { workspaces } = await this.client.call(M.listAccessibleWorkspaces, {});
    return list(workspaces.map(workspaceJson));
  }

  @Get('discover')
  @ApiOperation({
    summary: 'Discover public workspaces',
    description: 'Public, non-archived workspaces by name. Scope `workspaces:read`.',
  })
  @ApiOkResponse({ type: DiscoverPageDto })
  async discover(@Query() query: DiscoverQueryDto): Promise<DiscoverPageDto> {
    const limit = query.limit ?? DISCOVER_LIMIT_DEFAULT;
    const offset = query.offset ?? 0;
    const { workspaces, totalCount } = await this.client.call(M.discoverWorkspaces, {
      query: query.q ?? '',
      limit,
      offset,
    });
    return { ...list(workspaces.map(workspaceJson)), totalCount, limit, offset };
  }

  @Get('archived')
  @ApiOperation({
    summary: 'List archived workspaces',
    description: 'Archived workspaces the caller owns (to restore them). Scope `workspaces:read`.',
  })
  @ApiOkResponse({ type: WorkspaceListDto })
  async listArchived(): Promise<WorkspaceListDto> {
    const { workspaces } = await this.client.call(M.listArchivedWorkspaces, {});
    return list(workspaces.map(workspaceJson));
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Read a workspace',
    description: 'Scope `workspaces:read`; members, and anyone for a public workspace.',
  })
  @ApiOkResponse({ type: WorkspaceResponseDto })
  async get(@Param('id') id: string): Promise<WorkspaceResponseDto> {
    const { workspace } = await this.client.call(M.getWorkspace, { workspaceId: id });
    return { workspace: workspaceJson(workspace) };
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update a workspace',
    description: 'name, description, visibility; owners only. Scope `workspaces:write`.',
  })
  @ApiOkResponse({ type: WorkspaceResponseDto })
  async update(@Param('id') id: string, @Body() body: UpdateWorkspaceDto): Promise<WorkspaceResponseDto> {
    const { workspace } = await this.client.call(M.updateWorkspace, {
      workspaceId: id,
      name: body.name,
      description: body.description,
      visibility: body.visibility,
    });
    return { workspace: workspaceJson(workspace) };
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Archive a workspace',
    description: 'Owners only; scope `workspaces:delete`. The workspace then answers 404 everywhere until restored.',
  })
  @ApiOkResponse({ type: WorkspaceResponseDto })
  async archive(@Param('id') id: string): Promise<WorkspaceResponseDto> {
    const { workspace } = await this.client.call(M.archiveWorkspace, { workspaceId: id });
    return { workspace: workspaceJson(workspace) };
  }

  @Post(':id/restore')
  @HttpCode(200)
  @ApiOperation({ summary: 'Restore an archived workspace', description: 'Owners only; scope `workspaces:delete`.' })
  @ApiOkResponse({ type: WorkspaceResponseDto })
  async restore(@Param('id') id: string): Promise<WorkspaceResponseDto> {
    const { workspace } = await this.client.call(M.restoreWorkspace, { workspaceId: id });
    return { workspace: workspaceJson(workspace) };
  }

  @Get(':id/settings')
  @ApiOperation({ summary: 'Read workspace settings', description: 'Scope `workspaces:read`.' })
  @ApiOkResponse({ type: WorkspaceSettingsResponseDto })
  async getSettings(@Param('id') id: string): Promise<WorkspaceSettingsResponseDto> {
    const { settings } = await this.client.call(M.getWorkspaceSettings, { workspaceId: id });
    return { settings: settingsJson(settings) };
  }

  @Patch(':id/settings')
  @ApiOperation({
    summary: 'Update workspace settings',
    description: 'Partial: keys left out keep their value. Owners only; scope `workspaces:write`.',
  })
  @ApiOkResponse({ type: WorkspaceSettingsResponseDto })
  async updateSettings(
    @Param('id') id: string,
    @Body() body: UpdateWorkspaceSettingsDto,
  ): Promise<WorkspaceSettingsResponseDto> {
    const typeId = body.defaultFragmentTypeId;
    const { settings } = await this.client.call(M.updateWorkspaceSettings, {
      workspaceId: id,
      defaultFragmentTypeId: typeId === null ? '' : typeId,
      enrichmentSummaries: body.enrichment?.summaries,
      enrichmentTags: body.enrichment?.tags,
      allowPublicSubscriptions: body.allowPublicSubscriptions,
    });
    return { settings: settingsJson(settings) };
  }

  @Post(':id/subscribe')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Subscribe to a public workspace',
    description: 'Read-style access only. Private workspaces answer 404. Scope `workspaces:read`.',
  })
  @ApiOkResponse({ type: WorkspaceResponseDto })
  async subscribe(@Param('id') id: string): Promise<WorkspaceResponseDto> {
    const { workspace } = await this.client.call(M.subscribeWorkspace, { workspaceId: id });
    return { workspace: workspaceJson(workspace) };
  }

  @Post(':id/unsubscribe')
  @HttpCode(200)
  @ApiOperation({ summary: 'Unsubscribe from a public workspace', description: 'Idempotent. Scope `workspaces:read`.' })
  @ApiOkResponse({ type: WorkspaceResponseDto })
  async unsubscribe(@Param('id') id: string): Promise<WorkspaceResponseDto> {
    const { workspace } = await this.client.call(M.unsubscribeWorkspace, { workspaceId: id });
    return { workspace: workspaceJson(workspace) };
  }
}
