import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsBoolean, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';

const TEXT_MAX = 200_000;
const DIMENSIONS = ['day', 'model', 'capability', 'credential', 'workspace'];

export class EmbeddingRequestDto {
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 100 }],
    description: 'A text or up to 100 texts (the count is checked by the service)',
  })
  @IsString({ each: true })
  @MaxLength(TEXT_MAX, { each: true })
  input!: string | string[];

  @ApiPropertyOptional({
    enum: ['query', 'document'],
    description:
      "Embed the texts as search embeds a query, or as enrichment embeds a fragment (with the model's marker for it, if it has one), so they compare with the stored vectors; unset: the texts as given",
  })
  @IsOptional()
  @IsIn(['query', 'document'])
  inputType?: 'query' | 'document';
}

export class EmbeddingDto {
  @ApiProperty() index!: number;
  @ApiProperty({ type: [Number] }) embedding!: number[];
}

export class EmbeddingResponseDto {
  @ApiProperty({ example: 'builtin' }) provider!: string;
  @ApiProperty({ example: 'builtin-embedding' }) model!: string;
  @ApiProperty({ example: 256 }) dimension!: number;
  @ApiProperty({ type: [EmbeddingDto] }) data!: EmbeddingDto[];
}

export class TextOrFragmentDto {
  @ApiPropertyOptional({ description: 'The text (give this or fragmentId)' })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT_MAX)
  text?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'A fragment you may read (give this or text)' })
  @IsOptional()
  @IsUUID()
  fragmentId?: string;
}

export class TagsRequestDto extends TextOrFragmentDto {
  @OptionalInt({ min: 1, max: 50, default: 8, from: 'body' })
  max?: number;
}

export class SummaryResponseDto {
  @ApiProperty() summary!: string;
  @ApiProperty() provider!: string;
  @ApiProperty() model!: string;
}

export class TagsResponseDto {
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty() provider!: string;
  @ApiProperty() model!: string;
}

export class CapabilityDto {
  @ApiProperty({ enum: ['embedding', 'summary', 'tags', 'chat', 'images', 'web_search'] }) name!: string;
  @ApiProperty() available!: boolean;
  @ApiProperty() provider!: string;
  @ApiProperty() model!: string;
  @ApiPropertyOptional({ description: 'Why not, when not available' }) reason?: string;
}

export class AvailabilityDto {
  @ApiProperty({ type: [CapabilityDto] }) capabilities!: CapabilityDto[];
}

const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : value;
const toBool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

export class UsageQueryDto {
  @ApiPropertyOptional({ example: '2026-11-01', description: 'First UTC day (default: 30 days before `to`)' })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  from?: string;
  @ApiPropertyOptional({ example: '2026-11-26', description: 'Last UTC day, inclusive (default: today)' })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  to?: string;
  @ApiPropertyOptional({ example: 'day,model', description: `Comma-separated: ${DIMENSIONS.join(', ')}` })
  @IsOptional()
  @Transform(toList)
  @IsIn(DIMENSIONS, { each: true })
  @ArrayMaxSize(5)
  groupBy?: string[];
  @ApiPropertyOptional({ format: 'uuid', description: "One workspace's usage (its owner sees everyone's there)" })
  @IsOptional()
  @IsUUID()
  workspaceId?: string;
  @ApiPropertyOptional({ enum: ['chat', 'image', 'embedding', 'summary', 'tags', 'web_search'] })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  capability?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(256) model?: string;
  @ApiPropertyOptional({ description: "Everyone's usage (platform administrators)" })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  allUsers?: boolean;
  @OptionalInt({ min: 1, max: 1000, default: 100, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: 1_000_000, default: 0, from: 'query' })
  offset?: number;
}

export class UsageRowDto {
  @ApiProperty({ description: 'Filled for the dimensions grouped by' }) day!: string;
  @ApiProperty() model!: string;
  @ApiProperty() capability!: string;
  @ApiProperty() credentialId!: string;
  @ApiProperty() workspaceId!: string;
  @ApiProperty() requests!: number;
  @ApiProperty() inputTokens!: number;
  @ApiProperty() outputTokens!: number;
  @ApiProperty() images!: number;
  @ApiProperty() searches!: number;
  @ApiProperty() embeddings!: number;
  @ApiProperty({ description: "From the operator's price table (AI_PRICES)" }) estimatedCost!: number;
}

export class UsageDto {
  @ApiProperty({ type: [UsageRowDto] }) rows!: UsageRowDto[];
  @ApiProperty({ description: 'Groups in all (page with limit and offset)' }) totalCount!: number;
  @ApiProperty({ type: UsageRowDto }) totals!: UsageRowDto;
  @ApiProperty({ example: 'USD' }) currency!: string;
}
