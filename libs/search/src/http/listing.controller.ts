import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FragmentListingService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { plainJson } from './presenters.js';
import { LISTING_LIMIT_DEFAULT } from '../search-limits.js';
import {
  AgenticSearchDto,
  AgenticSearchResponseDto,
  ListFragmentsStructuredDto,
  ListFragmentsStructuredResponseDto,
} from './dto/listing.dto.js';

const M = FragmentListingService.method;

@ApiTags('Search')
@Controller('api/fragments')
export class ListingController {
  constructor(private readonly client: ServiceClient) {}

  @Post('list')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Structured listing',
    description:
      'Selected fields of the fragments matching a filter expression, ordered and paged (order keys, then ' +
      'id: advancing `offset` by `count` visits every row once). Archived fragments only with ' +
      '`includeArchived`. 400 `INVALID_FILTER` with `position`, `reason` and `param: "filter"` for a bad filter. Scope ' +
      '`fragments:read`.',
  })
  @ApiOkResponse({ type: ListFragmentsStructuredResponseDto })
  async list(@Body() body: ListFragmentsStructuredDto): Promise<ListFragmentsStructuredResponseDto> {
    const limit = body.limit ?? LISTING_LIMIT_DEFAULT;
    const offset = body.offset ?? 0;
    const { itemsJson, totalCount } = await this.client.call(M.listFragmentsStructured, {
      workspaceId: body.workspaceId,
      filter: body.filter ?? '',
      select: body.select ?? [],
      orderBy: (body.orderBy ?? []).map((o) => ({ field: o.field, direction: o.direction ?? 'asc' })),
      limit,
      offset,
      includeArchived: body.includeArchived ?? false,
    });
    const items = JSON.parse(itemsJson) as Record<string, unknown>[];
    return { success: true, items, count: items.length, totalCount, limit, offset };
  }

  @Post('agentic-search')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Agentic search',
    description:
      'Multi-step discovery for AI clients: runs the workspace search (BM25 and vectors) on the query, widens it ' +
      '(model keywords, graph entities), follows graph links and merges the results into leads with the steps ' +
      'taken. Leads carry a snippet, never the content. Scope `search:read`.',
  })
  @ApiOkResponse({ type: AgenticSearchResponseDto })
  async agenticSearch(@Body() body: AgenticSearchDto): Promise<AgenticSearchResponseDto> {
    const result = await this.client.call(M.agenticSearch, {
      workspaceId: body.workspaceId,
      query: body.query,
      maxLeads: body.maxLeads ?? 0,
    });
    return {
      success: true,
      query: body.query,
      expandedTerms: result.expandedTerms,
      leads: plainJson(result.leads),
      steps: plainJson(result.steps),
    };
  }
}
