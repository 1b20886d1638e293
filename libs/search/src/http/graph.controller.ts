import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GraphService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { plainJson } from './presenters.js';
import {
  GraphEntitySearchQueryDto,
  GraphEntitySearchResponseDto,
  GraphNeighbourhoodQueryDto,
  GraphNeighbourhoodResponseDto,
  GraphRetrieveDto,
  GraphRetrieveResponseDto,
  GraphStatsResponseDto,
  GraphWorkspaceQueryDto,
} from './dto/graph.dto.js';

const M = GraphService.method;

@ApiTags('Knowledge graph')
@Controller('api/graph')
export class GraphController {
  constructor(private readonly client: ServiceClient) {}

  @Get('stats')
  @ApiOperation({
    summary: 'Graph statistics',
    description: 'Entities, relations and mentions of live fragments, by kind. Scope `search:read`.',
  })
  @ApiOkResponse({ type: GraphStatsResponseDto })
  async stats(@Query() query: GraphWorkspaceQueryDto): Promise<GraphStatsResponseDto> {
    return { success: true, ...plainJson(await this.client.call(M.getGraphStats, { workspaceId: query.workspaceId })) };
  }

  @Get('entities')
  @ApiOperation({
    summary: 'Search entities',
    description: 'Entities by name prefix (default) or substring, most mentioned first. Scope `search:read`.',
  })
  @ApiOkResponse({ type: GraphEntitySearchResponseDto })
  async entities(@Query() query: GraphEntitySearchQueryDto): Promise<GraphEntitySearchResponseDto> {
    const { entities } = await this.client.call(M.searchGraphEntities, {
      workspaceId: query.workspaceId,
      query: query.q,
      match: query.match ?? 'prefix',
      kind: query.kind ?? '',
      limit: query.limit ?? 0,
    });
    return { success: true, items: plainJson(entities) };
  }

  @Get('entities/:entityId/neighbourhood')
  @ApiOperation({
    summary: 'Entity neighbourhood',
    description:
      'The entities within `depth` hops (1..3) along relations, the edges between them and the fragments ' +
      'mentioning each. 404 for an entity of another workspace. Scope `search:read`.',
  })
  @ApiOkResponse({ type: GraphNeighbourhoodResponseDto })
  async neighbourhood(
    @Param('entityId') entityId: string,
    @Query() query: GraphNeighbourhoodQueryDto,
  ): Promise<GraphNeighbourhoodResponseDto> {
    const result = await this.client.call(M.getEntityNeighbourhood, {
      workspaceId: query.workspaceId,
      entityId,
      depth: query.depth ?? 1,
    });
    return {
      success: true,
      root: plainJson(result.root!),
      nodes: plainJson(result.nodes),
      edges: plainJson(result.edges),
      truncated: result.truncated,
    };
  }

  @Post('retrieve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Graph-guided retrieval',
    description:
      'The entities the query names (seeds), their subgraph to `depth` hops and the fragments linked to it, ranked. Scope `search:read`.',
  })
  @ApiOkResponse({ type: GraphRetrieveResponseDto })
  async retrieve(@Body() body: GraphRetrieveDto): Promise<GraphRetrieveResponseDto> {
    const result = await this.client.call(M.graphRetrieve, {
      workspaceId: body.workspaceId,
      query: body.query,
      depth: body.depth ?? 1,
      limit: body.limit ?? 0,
    });
    return {
      success: true,
      ...plainJson({ seeds: result.seeds, nodes: result.nodes, edges: result.edges, fragments: result.fragments }),
    };
  }
}
