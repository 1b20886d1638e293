import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SearchService } from '@kw/contracts';
import { filesBesideSearch } from '@kw/platform-file-hits';
import { ServiceClient } from '@kw/platform-transport';
import {
  GlobalSearchResultsDto,
  KeywordSearchQueryDto,
  SearchFiltersDto,
  SearchResultsDto,
  SuggestionsDto,
  SuggestionsQueryDto,
  WorkspaceSearchQueryDto,
  searchOf,
} from './dto/search.dto.js';
import { fileHitJson } from './file-hits.js';
import { resultsJson } from './presenters.js';

const M = SearchService.method;

@ApiTags('Search')
@Controller('api/search')
export class SearchController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: 'Search a workspace',
    description:
      'Hybrid (BM25 keyword + vector, weighted score fusion), keyword or semantic. Scope `search:read`. Each hit says its `kind`: fragments in `results`, and on the first page files whose name or extracted text match in `files` (when the caller may read files).',
  })
  @ApiOkResponse({ type: SearchResultsDto })
  async search(@Query() query: WorkspaceSearchQueryDto): Promise<SearchResultsDto> {
    const search = searchOf(query);
    // Two components, independent questions: asked side by side.
    const [{ page }, files] = await Promise.all([
      this.client.call(M.search, {
        workspaceId: query.workspaceId,
        search,
        limit: query.limit ?? 0,
        offset: query.offset ?? 0,
      }),
      filesBesideSearch(this.client, {
        workspaceId: query.workspaceId,
        query: query.q,
        offset: query.offset ?? 0,
        fragmentFilters: search.types.length > 0 || search.tags.length > 0 || search.collectionId !== '',
      }),
    ]);
    return { ...resultsJson(page), files: files.map(fileHitJson) };
  }

  @Get('global')
  @ApiOperation({
    summary: 'Search every readable workspace',
    description:
      'Each result names its workspace; on the first page, files whose name or extracted text match, from every workspace whose files the caller may read, in `files`. ' +
      'Workspaces whose data lives in a hosted zone are not searched here: ' +
      '`skippedWorkspaces` names them with their Leaf (the TypeScript client searches them too). ' +
      'Scopes `search:read` and `workspaces:read`.',
  })
  @ApiOkResponse({ type: GlobalSearchResultsDto })
  async global(@Query() query: SearchFiltersDto): Promise<GlobalSearchResultsDto> {
    const search = searchOf(query);
    const [{ page, workspaceCount, skippedWorkspaces }, files] = await Promise.all([
      this.client.call(M.globalSearch, { search, limit: query.limit ?? 0, offset: query.offset ?? 0 }),
      filesBesideSearch(this.client, {
        query: query.q,
        offset: query.offset ?? 0,
        fragmentFilters: search.types.length > 0 || search.tags.length > 0,
      }),
    ]);
    return {
      ...resultsJson(page),
      files: files.map(fileHitJson),
      workspaceCount,
      skippedWorkspaces: skippedWorkspaces.map((w) => ({
        workspaceId: w.workspaceId,
        name: w.name,
        hostedZoneId: w.hostedZoneId,
        endpointUrl: w.endpointUrl,
        reason: 'hosted_zone' as const,
      })),
    };
  }

  @Get('simple')
  @ApiOperation({
    summary: 'Keyword search in a workspace',
    description: 'Full-text only, no filters. Scope `search:read`.',
  })
  @ApiOkResponse({ type: SearchResultsDto })
  async simple(@Query() query: KeywordSearchQueryDto): Promise<SearchResultsDto> {
    const search = { query: query.q, mode: 'keyword', types: [], tags: [], collectionId: '' };
    const { page } = await this.client.call(M.search, {
      workspaceId: query.workspaceId,
      search,
      limit: query.limit ?? 0,
      offset: query.offset ?? 0,
    });
    return resultsJson(page);
  }

  @Get('suggestions')
  @ApiOperation({
    summary: 'Complete a prefix',
    description: 'Tags and titles of the workspace starting with the prefix. Scope `search:read`.',
  })
  @ApiOkResponse({ type: SuggestionsDto })
  async suggestions(@Query() query: SuggestionsQueryDto): Promise<SuggestionsDto> {
    const { suggestions } = await this.client.call(M.suggestSearch, {
      workspaceId: query.workspaceId,
      prefix: query.prefix,
      limit: query.limit ?? 0,
    });
    return {
      success: true,
      suggestions: suggestions.map((s) => ({
        text: s.text,
        kind: s.kind,
        ...(s.fragmentId ? { fragmentId: s.fragmentId } : {}),
      })),
    };
  }
}
