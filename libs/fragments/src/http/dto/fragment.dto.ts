import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import {
  CREATED_VIA,
  FRAGMENT_KEY_MAX,
  FRAGMENT_LIST_LIMIT_DEFAULT,
  FRAGMENT_LIST_LIMIT_MAX,
  FRAGMENT_LIST_LIMIT_MIN,
  FRAGMENT_LIST_OFFSET_MAX,
  FRAGMENT_SORTS,
  FRAGMENT_STATUSES,
  FRAGMENT_SUMMARY_MAX,
  FRAGMENT_TAG_MAX,
  FRAGMENT_TAGS_MAX,
  FRAGMENT_TITLE_MAX,
  PATCH_OPERATIONS_MAX,
  PATCH_OPS,
  SORT_ORDERS,
} from '@kw/contracts';

const NOT_BLANK = /\S/;
const toBool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

export class CreateFragmentDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({
    format: 'uuid',
    description: 'A fragment type of the same workspace (else 400 `INVALID_FRAGMENT_TYPE`)',
  })
  @IsUUID()
  fragmentTypeId!: string;
  @ApiProperty({ maxLength: FRAGMENT_TITLE_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(FRAGMENT_TITLE_MAX)
  @Matches(NOT_BLANK, { message: 'title must not be blank' })
  title!: string;
  @ApiProperty({ description: 'Markdown; YAML frontmatter is kept verbatim and also returned parsed in `frontmatter`' })
  @IsString()
  content!: string;
  @ApiPropertyOptional({ maxLength: FRAGMENT_SUMMARY_MAX, description: 'Supplied: no AI summary is generated' })
  @IsOptional()
  @IsString()
  @MaxLength(FRAGMENT_SUMMARY_MAX)
  summary?: string;
  @ApiPropertyOptional({
    type: [String],
    maxItems: FRAGMENT_TAGS_MAX,
    description: 'Supplied: no AI tags unless enhanceTags',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(FRAGMENT_TAGS_MAX)
  @IsString({ each: true })
  @MaxLength(FRAGMENT_TAG_MAX, { each: true })
  tags?: string[];
  @ApiPropertyOptional({ default: false, description: 'Let AI add tags to the supplied ones' })
  @IsOptional()
  @IsBoolean()
  enhanceTags?: boolean;
  @ApiPropertyOptional({ enum: CREATED_VIA, default: 'api' }) @IsOptional() @IsIn(CREATED_VIA) createdVia?: string;
  @ApiPropertyOptional({
    maxLength: FRAGMENT_KEY_MAX,
    description: 'Unique per workspace; a taken key answers 409 `KEY_EXISTS` with `existingId`',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(FRAGMENT_KEY_MAX)
  key?: string;
}

export class PatchOperationDto {
  @ApiProperty({ enum: PATCH_OPS }) @IsIn(PATCH_OPS) op!: 'append' | 'prepend' | 'replaceSection';
  @ApiProperty() @IsString() text!: string;
  @ApiPropertyOptional({ description: 'replaceSection: the heading text (leading `#`s optional)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  heading?: string;
}

export class UpdateFragmentDto {
  @ApiPropertyOptional({ maxLength: FRAGMENT_TITLE_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(FRAGMENT_TITLE_MAX)
  @Matches(NOT_BLANK, { message: 'title must not be blank' })
  title?: string;
  @ApiPropertyOptional({ description: 'Replaces the content; not together with `operations`' })
  @IsOptional()
  @IsString()
  content?: string;
  @ApiPropertyOptional({ maxLength: FRAGMENT_SUMMARY_MAX, description: 'Empty string: clear (AI summary again)' })
  @IsOptional()
  @IsString()
  @MaxLength(FRAGMENT_SUMMARY_MAX)
  summary?: string;
  @ApiPropertyOptional({ type: [String], maxItems: FRAGMENT_TAGS_MAX })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(FRAGMENT_TAGS_MAX)
  @IsString({ each: true })
  @MaxLength(FRAGMENT_TAG_MAX, { each: true })
  tags?: string[];
  @ApiPropertyOptional() @IsOptional() @IsBoolean() enhanceTags?: boolean;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() fragmentTypeId?: string;
  @ApiPropertyOptional({ maxLength: FRAGMENT_KEY_MAX, description: 'Empty string removes the key' })
  @IsOptional()
  @IsString()
  @MaxLength(FRAGMENT_KEY_MAX)
  key?: string;
  @ApiPropertyOptional({
    type: [PatchOperationDto],
    maxItems: PATCH_OPERATIONS_MAX,
    description: 'Applied in order to the current content',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(PATCH_OPERATIONS_MAX)
  @ValidateNested({ each: true })
  @Type(() => PatchOperationDto)
  operations?: PatchOperationDto[];
  @OptionalInt({
    min: 1,
    max: 2_147_483_647,
    description: 'The version last read (or header `If-Match: "<version>"`); stale: 409 `VERSION_CONFLICT`',
    from: 'body',
  })
  version?: number;
}

export class ListFragmentsQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() fragmentTypeId?: string;
  @ApiPropertyOptional({ enum: FRAGMENT_STATUSES }) @IsOptional() @IsIn(FRAGMENT_STATUSES) status?: string;
  @ApiPropertyOptional({
    description: 'Comma-separated; every tag must match. `\\,` is a comma inside a tag, `\\\\` a backslash',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  tags?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(FRAGMENT_KEY_MAX) key?: string;
  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  includeArchived?: boolean;
  @OptionalInt({
    min: FRAGMENT_LIST_LIMIT_MIN,
    max: FRAGMENT_LIST_LIMIT_MAX,
    default: FRAGMENT_LIST_LIMIT_DEFAULT,
    from: 'query',
  })
  limit?: number;
  @OptionalInt({ min: 0, max: FRAGMENT_LIST_OFFSET_MAX, default: 0, from: 'query' })
  offset?: number;
  @ApiPropertyOptional({ enum: FRAGMENT_SORTS, default: 'createdAt' })
  @IsOptional()
  @IsIn(FRAGMENT_SORTS)
  sort?: string;
  @ApiPropertyOptional({
    enum: SORT_ORDERS,
    default: 'asc',
    description: 'Default createdAt asc (then id): new records appear at the end',
  })
  @IsOptional()
  @IsIn(SORT_ORDERS)
  order?: string;
}

export class DeleteFragmentQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Owners only: delete instead of archive' })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  permanent?: boolean;
}

export class CheckLimitsDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
}

export class FragmentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty({ format: 'uuid' }) fragmentTypeId!: string;
  @ApiProperty() title!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ type: Object, nullable: true, description: 'Parsed YAML frontmatter; null when absent or invalid' })
  frontmatter!: Record<string, unknown> | null;
  @ApiProperty({ type: String, nullable: true }) summary!: string | null;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty() enhanceTags!: boolean;
  @ApiProperty({ type: String, nullable: true }) key!: string | null;
  @ApiProperty({ enum: FRAGMENT_STATUSES }) status!: string;
  @ApiProperty({ enum: CREATED_VIA }) createdVia!: string;
  @ApiProperty() version!: number;
  @ApiProperty({
    type: Object,
    description: 'Per step (summary, tags, embedding, graph): {state, attempts, error?, at}',
  })
  enrichment!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) archivedAt!: string | null;
}

export class FragmentResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: FragmentDto }) fragment!: FragmentDto;
}

export class FragmentListDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FragmentDto] }) items!: FragmentDto[];
  @ApiProperty({ description: 'Items in this page' }) count!: number;
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class FragmentLimitsDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() maxFragmentsPerWorkspace!: number;
  @ApiProperty() maxContentBytes!: number;
  @ApiProperty() currentCount!: number;
  @ApiProperty() remaining!: number;
  @ApiProperty() canCreate!: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "The workspace's plan (its creator's) when it limits fragments; else null",
  })
  planId!: string | null;
  @ApiProperty({
    enum: ['plan', 'deployment'],
    description: "Which cap maxFragmentsPerWorkspace is: the plan's, or the deployment's MAX_FRAGMENTS_PER_WORKSPACE",
  })
  limitedBy!: 'plan' | 'deployment';
}
