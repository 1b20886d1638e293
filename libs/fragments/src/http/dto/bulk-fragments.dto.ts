import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsObject, IsOptional, IsUUID } from 'class-validator';
import { BULK_FRAGMENTS_MAX } from '@kw/contracts';
import { CreateFragmentDto } from './fragment.dto.js';

/** One fragment of a bulk write: a create's body without the workspace (the request's applies). */
export class BulkFragmentItemDto extends OmitType(CreateFragmentDto, ['workspaceId'] as const) {}

export class BulkWriteFragmentsDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiPropertyOptional({
    default: false,
    description: 'An item whose `key` exists updates that fragment (or leaves it, when nothing differs)',
  })
  @IsOptional()
  @IsBoolean()
  upsert?: boolean;
  @ApiProperty({
    type: [BulkFragmentItemDto],
    minItems: 1,
    maxItems: BULK_FRAGMENTS_MAX,
    description: 'Each item is validated on its own: a bad one fails alone, with its outcome',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BULK_FRAGMENTS_MAX)
  @IsObject({ each: true })
  items!: Array<Record<string, unknown>>;
}

export class BulkItemErrorDto {
  @ApiProperty({ description: 'The status the single route would have answered' }) status!: number;
  @ApiProperty() code!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional() param?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'KEY_EXISTS: the fragment holding the key' })
  existingId?: string;
}

export class BulkItemResultDto {
  @ApiProperty({ description: "The item's position in `items`" }) index!: number;
  @ApiProperty({ enum: ['created', 'updated', 'unchanged', 'failed'] }) status!: string;
  @ApiPropertyOptional({ format: 'uuid' }) id?: string;
  @ApiPropertyOptional({ type: BulkItemErrorDto }) error?: BulkItemErrorDto;
}

export class BulkWriteResultDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() created!: number;
  @ApiProperty() updated!: number;
  @ApiProperty() unchanged!: number;
  @ApiProperty() failed!: number;
  @ApiProperty({ type: [BulkItemResultDto], description: 'One per item, in order' })
  results!: BulkItemResultDto[];
}
