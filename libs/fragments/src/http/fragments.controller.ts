import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FragmentsService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import { commaList } from '@kw/platform-http';
import { FRAGMENT_LIST_LIMIT_DEFAULT } from '../fragments-limits.js';
import {
  CheckLimitsDto,
  CreateFragmentDto,
  DeleteFragmentQueryDto,
  FragmentLimitsDto,
  FragmentListDto,
  FragmentResponseDto,
  ListFragmentsQueryDto,
  UpdateFragmentDto,
} from './dto/fragment.dto.js';
import { createFragmentInput } from './create-fragment-input.js';
import { fragmentJson } from './presenters.js';

const M = FragmentsService.method;

/**
 * Parses `If-Match: "<version>"` (quotes and a weak prefix optional); anything else is 400.
 * `*` matches any current representation (RFC 9110 §13.1.1): no version precondition.
 */
function versionFromIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!match) throw badRequest('If-Match must be a fragment version such as "3"');
  return Number(match[1]);
}

@ApiTags('Memory fragments')
@Controller('api/memory-fragments')
export class FragmentsController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: 'List fragments',
    description:
      'Filters combine (AND); `tags` is a comma list and every tag must match (`\\,` is a comma inside a tag, `\\\\` a backslash). Default order createdAt asc ' +
      'then id: records added while paging appear at the end, so advancing `offset` by `count` until ' +
      '`offset + count >= totalCount` visits every record once. `limit` 5..500 (default 50). Archived ' +
      'fragments only with `includeArchived=true`. Scope `fragments:read`.',
  })
  @ApiOkResponse({ type: FragmentListDto })
  async list(@Query() query: ListFragmentsQueryDto): Promise<FragmentListDto> {
    const limit = query.limit ?? FRAGMENT_LIST_LIMIT_DEFAULT;
    const offset = query.offset ?? 0;
    const tags = commaList(query.tags);
    const { items, totalCount } = await this.client.call(M.listFragments, {
      workspaceId: query.workspaceId,
      id: query.id,
      fragmentTypeId: query.fragmentTypeId,
      status: query.status,
      tags,
      key: query.key,
      includeArchived: query.includeArchived ?? false,
      limit,
      offset,
      sort: query.sort ?? 'createdAt',
      order: query.order ?? 'asc',
    });
    return { success: true, items: items.map(fragmentJson), count: items.length, totalCount, limit, offset };
  }

  @Post()
  @ApiOperation({
    summary: 'Create a fragment',
    description:
      'Answers 201 with status `processing`: enrichment (summary, tags, embedding, graph) runs afterwards. ' +
      '400 `INVALID_FRAGMENT_TYPE` for a type of another workspace; 409 `KEY_EXISTS` with `existingId` ' +
      'when the key is taken. Scope `fragments:write`.',
  })
  @ApiCreatedResponse({ type: FragmentResponseDto })
  async create(@Body() body: CreateFragmentDto): Promise<FragmentResponseDto> {
    const { fragment } = await this.client.call(
      M.createFragment,
      createFragmentInput(body, { workspaceId: body.workspaceId, createdVia: 'api' }),
    );
    return { success: true, fragment: fragmentJson(fragment!) };
  }

  @Post('check-limits')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check creation limits',
    description: 'The limits in force for the workspace and what is used. Scope `fragments:read`.',
  })
  @ApiOkResponse({ type: FragmentLimitsDto })
  async checkLimits(@Body() body: CheckLimitsDto): Promise<FragmentLimitsDto> {
    const limits = await this.client.call(M.checkFragmentLimits, { workspaceId: body.workspaceId });
    return {
      success: true,
      maxFragmentsPerWorkspace: limits.maxFragmentsPerWorkspace,
      maxContentBytes: limits.maxContentBytes,
      currentCount: limits.currentCount,
      remaining: limits.remaining,
      canCreate: limits.canCreate,
      planId: limits.planId || null,
      limitedBy: limits.limitedBy === 'plan' ? 'plan' : 'deployment',
    };
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a fragment',
    description: 'Archived fragments are returned too, with `archivedAt`. Scope `fragments:read`.',
  })
  @ApiOkResponse({ type: FragmentResponseDto })
  async get(@Param('id') id: string): Promise<FragmentResponseDto> {
    const { fragment } = await this.client.call(M.getFragment, { fragmentId: id });
    return { success: true, fragment: fragmentJson(fragment!) };
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update a fragment',
    description:
      'Fields, or patch `operations` applied in order (`append`, `prepend` (after any frontmatter), ' +
      '`replaceSection` (the body under the heading up to the next heading of the same or higher level; ' +
      'unknown heading: 400 `SECTION_NOT_FOUND`)); `content` with `operations`: 400. Optimistic ' +
      'concurrency with body `version` or `If-Match: "<version>"`: stale answers 409 `VERSION_CONFLICT` ' +
      'with `currentVersion`; without either, the update applies to whatever is current (concurrent ones ' +
      'one after another, none refused). A title or content change re-runs enrichment (status `processing`); `summary: ""` ' +
      'clears the summary and generates it again (the summary step only). ' +
      'Contributors update only their own fragments. Scope `fragments:write`.',
  })
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description: 'The version last read, e.g. "3"; `*` sets no precondition (the fragment exists: 404 otherwise)',
  })
  @ApiOkResponse({ type: FragmentResponseDto })
  async update(
    @Param('id') id: string,
    @Body() body: UpdateFragmentDto,
    @Headers('if-match') ifMatch?: string,
  ): Promise<FragmentResponseDto> {
    if (body.content !== undefined && body.operations !== undefined)
      throw badRequest('content and operations cannot be sent together');
    for (const op of body.operations ?? []) {
      if (op.op === 'replaceSection' && op.heading === undefined) throw badRequest('replaceSection needs a heading');
    }
    const headerVersion = versionFromIfMatch(ifMatch);
    if (headerVersion !== undefined && body.version !== undefined && headerVersion !== body.version)
      throw badRequest('version and If-Match disagree');
    const { fragment } = await this.client.call(M.updateFragment, {
      fragmentId: id,
      title: body.title,
      content: body.content,
      summary: body.summary,
      // null is "not sent", as for every other field (an empty list clears the tags).
      tagsSupplied: body.tags != null,
      tags: body.tags ?? [],
      enhanceTags: body.enhanceTags,
      fragmentTypeId: body.fragmentTypeId,
      key: body.key,
      operations: (body.operations ?? []).map((op) => ({ op: op.op, text: op.text, heading: op.heading ?? '' })),
      expectedVersion: body.version ?? headerVersion ?? 0,
    });
    return { success: true, fragment: fragmentJson(fragment!) };
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Archive or delete a fragment',
    description:
      'Archives (sets `archivedAt`; GET still returns it, listings hide it unless `includeArchived=true`). ' +
      '`permanent=true`: owners delete it for good. Both emit `fragment.deleted`. Contributors archive ' +
      'only their own. Scope `fragments:delete`.',
  })
  @ApiOkResponse({ type: FragmentResponseDto })
  async delete(@Param('id') id: string, @Query() query: DeleteFragmentQueryDto): Promise<FragmentResponseDto> {
    const { fragment } = await this.client.call(M.deleteFragment, {
      fragmentId: id,
      permanent: query.permanent ?? false,
    });
    return { success: true, fragment: fragmentJson(fragment!) };
  }
}
