import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import { DEFAULT_SELECT, SELECTABLE_FIELDS, SORTABLE_FIELDS } from '../../domain/listing-fields.js';
import {
  LISTING_LIMIT_DEFAULT,
  LISTING_LIMIT_MAX,
  LISTING_OFFSET_MAX,
  LISTING_ORDER_MAX,
} from '../../search-limits.js';
import { AGENTIC_MAX_LEADS, AGENTIC_MAX_LEADS_DEFAULT, AGENTIC_QUERY_MAX } from '../../search-limits.js';

export class ListingOrderDto {
  @ApiProperty({ enum: SORTABLE_FIELDS }) @IsIn(SORTABLE_FIELDS) field!: string;
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'asc' }) @IsOptional() @IsIn(['asc', 'desc']) direction?:
    'asc' | 'desc';
}

export class ListFragmentsStructuredDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiPropertyOptional({
    description:
      "Filter expression (docs/search-listing-and-graph.md), at most 2,000 characters and 16 levels of nesting, e.g. `type = 'note' and tags has 'ai' and createdAt >= '2026-01-01' and not title ~ 'draft'`. " +
      'A bad one is 400 `INVALID_FILTER` with `position`, `reason` and `param: "filter"`.',
  })
  @IsOptional()
  @IsString()
  filter?: string;
  @ApiPropertyOptional({ type: [String], enum: SELECTABLE_FIELDS, default: DEFAULT_SELECT })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(SELECTABLE_FIELDS.length)
  @IsIn(SELECTABLE_FIELDS, { each: true })
  select?: string[];
  @ApiPropertyOptional({
    type: [ListingOrderDto],
    maxItems: LISTING_ORDER_MAX,
    description: 'Default createdAt asc; id always breaks ties',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LISTING_ORDER_MAX)
  @ValidateNested({ each: true })
  @Type(() => ListingOrderDto)
  orderBy?: ListingOrderDto[];
  @OptionalInt({ min: 1, max: LISTING_LIMIT_MAX, default: LISTING_LIMIT_DEFAULT, from: 'body' })
  limit?: number;
  @OptionalInt({ min: 0, max: LISTING_OFFSET_MAX, default: 0, from: 'body' })
  offset?: number;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() includeArchived?: boolean;
}

export class ListFragmentsStructuredResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'The selected fields of each fragment',
  })
  items!: Record<string, unknown>[];
  @ApiProperty() count!: number;
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class AgenticSearchDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ maxLength: AGENTIC_QUERY_MAX }) @IsString() @MinLength(1) @MaxLength(AGENTIC_QUERY_MAX) query!: string;
  @OptionalInt({ min: 1, max: AGENTIC_MAX_LEADS, default: AGENTIC_MAX_LEADS_DEFAULT, from: 'body' })
  maxLeads?: number;
}

export class AgenticLeadDto {
  @ApiProperty({ format: 'uuid' }) fragmentId!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ description: 'Which retrievals found it' }) why!: string;
  @ApiProperty() score!: number;
  @ApiProperty({ description: 'A short excerpt; leads carry no content beyond it' }) snippet!: string;
}

export class AgenticStepDto {
  @ApiProperty({ enum: ['expand', 'keyword', 'entities', 'neighbours', 'graph', 'merge'] }) kind!: string;
  @ApiProperty() detail!: string;
  @ApiProperty({ type: [String] }) terms!: string[];
  @ApiProperty() found!: number;
}

export class AgenticSearchResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() query!: string;
  @ApiProperty({ type: [String] }) expandedTerms!: string[];
  @ApiProperty({ type: [AgenticLeadDto] }) leads!: AgenticLeadDto[];
  @ApiProperty({ type: [AgenticStepDto] }) steps!: AgenticStepDto[];
}
