import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import { SearchService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';

export class SearchAnalyticsQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @OptionalInt({ min: 1, max: 365, default: 30, from: 'query' })
  days?: number;
  @OptionalInt({ min: 1, max: 100, default: 10, from: 'query' })
  limit?: number;
}

export class QueryCountDto {
  @ApiProperty({ description: 'Normalised query (trimmed, lower case)' }) query!: string;
  @ApiProperty() count!: number;
}

export class SearchAnalyticsDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() days!: number;
  @ApiProperty() totalQueries!: number;
  @ApiProperty() zeroResultQueries!: number;
  @ApiProperty({ type: [QueryCountDto] }) topQueries!: QueryCountDto[];
  @ApiProperty({ type: [QueryCountDto] }) topZeroResultQueries!: QueryCountDto[];
}

const countJson = (c: { query: string; count: number }): QueryCountDto => ({ query: c.query, count: c.count });

@ApiTags('Search')
@Controller('api/search/analytics')
export class SearchAnalyticsController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: 'Search analytics of a workspace',
    description: 'Workspace owners only. Scope `workspaces:write`.',
  })
  @ApiOkResponse({ type: SearchAnalyticsDto })
  async get(@Query() query: SearchAnalyticsQueryDto): Promise<SearchAnalyticsDto> {
    const r = await this.client.call(SearchService.method.getSearchAnalytics, {
      workspaceId: query.workspaceId,
      days: query.days ?? 0,
      limit: query.limit ?? 0,
    });
    return {
      success: true,
      days: r.days,
      totalQueries: r.totalQueries,
      zeroResultQueries: r.zeroResultQueries,
      topQueries: r.topQueries.map(countJson),
      topZeroResultQueries: r.topZeroResultQueries.map(countJson),
    };
  }
}
