import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SearchService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { resultsJson, savedJson } from './presenters.js';
import {
  CreateSavedSearchDto,
  ListSavedSearchesQueryDto,
  RunSavedSearchQueryDto,
  SavedSearchListDto,
  SavedSearchResponseDto,
  SavedSearchRunDto,
} from './dto/saved-search.dto.js';

const M = SearchService.method;

@ApiTags('Search')
@Controller('api/search/saved')
export class SavedSearchesController {
  constructor(private readonly client: ServiceClient) {}

  @Post()
  @ApiOperation({
    summary: 'Save a search',
    description: 'Private to the caller, in one workspace. Scope `search:read`.',
  })
  @ApiCreatedResponse({ type: SavedSearchResponseDto })
  async create(@Body() body: CreateSavedSearchDto): Promise<SavedSearchResponseDto> {
    const search = {
      query: body.q,
      mode: body.mode ?? 'hybrid',
      types: body.types ?? [],
      tags: body.tags ?? [],
      collectionId: body.collectionId ?? '',
    };
    const { savedSearch } = await this.client.call(M.createSavedSearch, {
      workspaceId: body.workspaceId,
      name: body.name,
      search,
    });
    return { success: true, savedSearch: savedJson(savedSearch!) };
  }

  @Get()
  @ApiOperation({ summary: "List the caller's saved searches in a workspace", description: 'Scope `search:read`.' })
  @ApiOkResponse({ type: SavedSearchListDto })
  async list(@Query() query: ListSavedSearchesQueryDto): Promise<SavedSearchListDto> {
    const { savedSearches } = await this.client.call(M.listSavedSearches, { workspaceId: query.workspaceId });
    return { success: true, items: savedSearches.map(savedJson), count: savedSearches.length };
  }

  @Post(':savedSearchId/run')
  @HttpCode(200)
  @ApiOperation({ summary: 'Run a saved search', description: 'Scope `search:read`.' })
  @ApiOkResponse({ type: SavedSearchRunDto })
  async run(@Param('savedSearchId') id: string, @Query() query: RunSavedSearchQueryDto): Promise<SavedSearchRunDto> {
    const { savedSearch, page } = await this.client.call(M.runSavedSearch, {
      id,
      limit: query.limit ?? 0,
      offset: query.offset ?? 0,
    });
    return { ...resultsJson(page), savedSearch: savedJson(savedSearch!) };
  }

  @Delete(':savedSearchId')
  @ApiOperation({ summary: 'Delete a saved search', description: 'Scope `search:read`.' })
  @ApiOkResponse({ type: SavedSearchResponseDto })
  async delete(@Param('savedSearchId') id: string): Promise<{ success: boolean }> {
    await this.client.call(M.deleteSavedSearch, { id });
    return { success: true };
  }
}
