import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FragmentsService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import {
  CollectionChangeDto,
  CollectionFragmentIdsDto,
  CollectionFragmentsDto,
  CollectionListDto,
  CollectionResponseDto,
  CreateCollectionDto,
  LookupCollectionsDto,
  LookupCollectionsResponseDto,
  PageQueryDto,
  SuccessDto,
  UpdateCollectionDto,
} from './dto/collection.dto.js';
import { collectionJson, fragmentJson } from './presenters.js';

const M = FragmentsService.method;

@ApiTags('Collections')
@Controller('api/workspaces/:id')
export class CollectionsController {
  constructor(private readonly client: ServiceClient) {}

  @Get('collections')
  @ApiOperation({ summary: 'List collections', description: 'Scope `collections:read`.' })
  @ApiOkResponse({ type: CollectionListDto })
  async list(@Param('id') id: string): Promise<CollectionListDto> {
    const { collections } = await this.client.call(M.listCollections, { workspaceId: id });
    return { success: true, items: collections.map(collectionJson), count: collections.length };
  }

  @Post('collections')
  @ApiOperation({ summary: 'Create a collection', description: 'Scope `collections:write`.' })
  @ApiCreatedResponse({ type: CollectionResponseDto })
  async create(@Param('id') id: string, @Body() body: CreateCollectionDto): Promise<CollectionResponseDto> {
    const { collection } = await this.client.call(M.createCollection, {
      workspaceId: id,
      name: body.name,
      description: body.description ?? '',
    });
    return { success: true, collection: collectionJson(collection!) };
  }

  @Get('collections/:collectionId')
  @ApiOperation({ summary: 'Get a collection', description: 'Scope `collections:read`.' })
  @ApiOkResponse({ type: CollectionResponseDto })
  async get(@Param('id') id: string, @Param('collectionId') collectionId: string): Promise<CollectionResponseDto> {
    const { collection } = await this.client.call(M.getCollection, { workspaceId: id, collectionId });
    return { success: true, collection: collectionJson(collection!) };
  }

  @Patch('collections/:collectionId')
  @ApiOperation({
    summary: 'Update a collection',
    description: 'Contributors change only their own collections. Scope `collections:write`.',
  })
  @ApiOkResponse({ type: CollectionResponseDto })
  async update(
    @Param('id') id: string,
    @Param('collectionId') collectionId: string,
    @Body() body: UpdateCollectionDto,
  ): Promise<CollectionResponseDto> {
    const { collection } = await this.client.call(M.updateCollection, {
      workspaceId: id,
      collectionId,
      name: body.name,
      description: body.description,
    });
    return { success: true, collection: collectionJson(collection!) };
  }

  @Delete('collections/:collectionId')
  @ApiOperation({ summary: 'Delete a collection', description: 'The fragments stay. Scope `collections:write`.' })
  @ApiOkResponse({ type: SuccessDto })
  async delete(@Param('id') id: string, @Param('collectionId') collectionId: string): Promise<SuccessDto> {
    await this.client.call(M.deleteCollection, { workspaceId: id, collectionId });
    return { success: true };
  }

  @Get('collections/:collectionId/fragments')
  @ApiOperation({
    summary: "List a collection's fragments",
    description: 'Non-archived fragments, createdAt asc then id. Scope `collections:read`.',
  })
  @ApiOkResponse({ type: CollectionFragmentsDto })
  async fragments(
    @Param('id') id: string,
    @Param('collectionId') collectionId: string,
    @Query() query: PageQueryDto,
  ): Promise<CollectionFragmentsDto> {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const { items, totalCount } = await this.client.call(M.listCollectionFragments, {
      workspaceId: id,
      collectionId,
      limit,
      offset,
    });
    return { success: true, items: items.map(fragmentJson), count: items.length, totalCount, limit, offset };
  }

  @Post('collections/:collectionId/fragments')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Add fragments to a collection',
    description:
      'Ids that are not fragments of the workspace: 404 listing them in `fragmentIds`. Scope `collections:write`.',
  })
  @ApiOkResponse({ type: CollectionChangeDto })
  async add(
    @Param('id') id: string,
    @Param('collectionId') collectionId: string,
    @Body() body: CollectionFragmentIdsDto,
  ): Promise<CollectionChangeDto> {
    const { added } = await this.client.call(M.addCollectionFragments, {
      workspaceId: id,
      collectionId,
      fragmentIds: body.fragmentIds,
    });
    return { success: true, changed: added };
  }

  @Delete('collections/:collectionId/fragments')
  @ApiOperation({ summary: 'Remove fragments from a collection', description: 'Scope `collections:write`.' })
  @ApiOkResponse({ type: CollectionChangeDto })
  async remove(
    @Param('id') id: string,
    @Param('collectionId') collectionId: string,
    @Body() body: CollectionFragmentIdsDto,
  ): Promise<CollectionChangeDto> {
    const { removed } = await this.client.call(M.removeCollectionFragments, {
      workspaceId: id,
      collectionId,
      fragmentIds: body.fragmentIds,
    });
    return { success: true, changed: removed };
  }

  @Post('fragment-collections')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Collections of many fragments',
    description: 'Up to 500 fragment ids of the workspace (others: 404). Scope `collections:read`.',
  })
  @ApiOkResponse({ type: LookupCollectionsResponseDto })
  async lookup(@Param('id') id: string, @Body() body: LookupCollectionsDto): Promise<LookupCollectionsResponseDto> {
    const { items } = await this.client.call(M.lookupFragmentCollections, {
      workspaceId: id,
      fragmentIds: body.fragmentIds,
    });
    return {
      success: true,
      items: items.map((i) => ({
        fragmentId: i.fragmentId,
        collections: i.collections.map((c) => ({ id: c.id, name: c.name })),
      })),
    };
  }
}
