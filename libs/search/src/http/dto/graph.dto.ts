import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import {
  GRAPH_DEPTH_MAX,
  GRAPH_QUERY_MAX,
  GRAPH_SEARCH_LIMIT_DEFAULT,
  GRAPH_SEARCH_LIMIT_MAX,
} from '../../search-limits.js';

export class GraphWorkspaceQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
}

export class GraphEntitySearchQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ maxLength: GRAPH_QUERY_MAX, description: 'Compared case-insensitively with entity names' })
  @IsString()
  @MinLength(1)
  @MaxLength(GRAPH_QUERY_MAX)
  q!: string;
  @ApiPropertyOptional({ enum: ['prefix', 'substring'], default: 'prefix' })
  @IsOptional()
  @IsIn(['prefix', 'substring'])
  match?: 'prefix' | 'substring';
  @ApiPropertyOptional({ description: 'Only entities of this kind (person, technology, url...)' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  kind?: string;
  @OptionalInt({ min: 1, max: GRAPH_SEARCH_LIMIT_MAX, default: GRAPH_SEARCH_LIMIT_DEFAULT, from: 'query' })
  limit?: number;
}

export class GraphNeighbourhoodQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @OptionalInt({ min: 1, max: GRAPH_DEPTH_MAX, default: 1, from: 'query' })
  depth?: number;
}

export class GraphRetrieveDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ maxLength: GRAPH_QUERY_MAX }) @IsString() @MinLength(1) @MaxLength(GRAPH_QUERY_MAX) query!: string;
  @OptionalInt({ min: 1, max: GRAPH_DEPTH_MAX, default: 1, from: 'body' })
  depth?: number;
  @OptionalInt({ min: 1, max: GRAPH_SEARCH_LIMIT_MAX, default: GRAPH_SEARCH_LIMIT_DEFAULT, from: 'body' })
  limit?: number;
}

export class GraphKindCountDto {
  @ApiProperty() kind!: string;
  @ApiProperty() count!: number;
}

export class GraphStatsResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ description: 'Entities mentioned by live fragments' }) entities!: number;
  @ApiProperty({ description: 'Relations stated by live fragments' }) relations!: number;
  @ApiProperty() mentions!: number;
  @ApiProperty({ type: [GraphKindCountDto] }) entitiesByKind!: GraphKindCountDto[];
  @ApiProperty({ type: [GraphKindCountDto] }) relationsByKind!: GraphKindCountDto[];
}

export class GraphFragmentRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() title!: string;
}

export class GraphEntityDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() kind!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'Live fragments mentioning it' }) mentionCount!: number;
  @ApiProperty({ description: 'Hops from the root or seed entities' }) depth!: number;
  @ApiProperty({
    type: [GraphFragmentRefDto],
    description: 'Up to 10 mentioning fragments, newest first (empty in entity search)',
  })
  fragments!: GraphFragmentRefDto[];
}

export class GraphEdgeDto {
  @ApiProperty({ format: 'uuid' }) sourceId!: string;
  @ApiProperty({ format: 'uuid' }) targetId!: string;
  @ApiProperty() kind!: string;
  @ApiProperty({ description: 'Live fragments stating the relation' }) weight!: number;
}

export class GraphEntitySearchResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [GraphEntityDto] }) items!: GraphEntityDto[];
}

export class GraphNeighbourhoodResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: GraphEntityDto }) root!: GraphEntityDto;
  @ApiProperty({ type: [GraphEntityDto] }) nodes!: GraphEntityDto[];
  @ApiProperty({ type: [GraphEdgeDto] }) edges!: GraphEdgeDto[];
  @ApiProperty({ description: 'The node cap (200) cut the traversal short' }) truncated!: boolean;
}

export class GraphRetrievedFragmentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ description: 'Sum over the nodes it mentions of 1/(1+depth)' }) score!: number;
  @ApiProperty({ type: [String] }) entityIds!: string[];
}

export class GraphRetrieveResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [GraphEntityDto], description: 'Entities named in the query' }) seeds!: GraphEntityDto[];
  @ApiProperty({ type: [GraphEntityDto] }) nodes!: GraphEntityDto[];
  @ApiProperty({ type: [GraphEdgeDto] }) edges!: GraphEdgeDto[];
  @ApiProperty({ type: [GraphRetrievedFragmentDto] }) fragments!: GraphRetrievedFragmentDto[];
}
