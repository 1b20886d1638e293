import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import {
  COLLECTION_FRAGMENT_IDS_MAX,
  COLLECTION_NAME_MAX,
  DESCRIPTION_MAX,
  FRAGMENT_TYPE_KEY_MAX,
  FRAGMENT_TYPE_NAME_MAX,
  LOOKUP_FRAGMENT_IDS_MAX,
} from '@kw/contracts';
import { FragmentDto } from './fragment.dto.js';

const NOT_BLANK = /\S/;

export class CreateFragmentTypeDto {
  @ApiProperty({
    maxLength: FRAGMENT_TYPE_KEY_MAX,
    example: 'runbook',
    description: 'Lower-case slug, unique per workspace (409 `TYPE_KEY_EXISTS`)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(FRAGMENT_TYPE_KEY_MAX)
  key!: string;
  @ApiProperty({ maxLength: FRAGMENT_TYPE_NAME_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(FRAGMENT_TYPE_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name!: string;
  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string;
}

export class UpdateFragmentTypeDto {
  @ApiPropertyOptional({ maxLength: FRAGMENT_TYPE_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(FRAGMENT_TYPE_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name?: string;
  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string;
}

export class FragmentTypeDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() key!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'One of the defaults every workspace starts with' }) isDefault!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class FragmentTypeResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: FragmentTypeDto }) fragmentType!: FragmentTypeDto;
}

export class FragmentTypeListDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FragmentTypeDto] }) items!: FragmentTypeDto[];
  @ApiProperty() count!: number;
}

export class CreateCollectionDto {
  @ApiProperty({ maxLength: COLLECTION_NAME_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(COLLECTION_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name!: string;
  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string;
}

export class UpdateCollectionDto {
  @ApiPropertyOptional({ maxLength: COLLECTION_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(COLLECTION_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name?: string;
  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string;
}

export class CollectionFragmentIdsDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: COLLECTION_FRAGMENT_IDS_MAX })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(COLLECTION_FRAGMENT_IDS_MAX)
  @IsUUID('all', { each: true })
  fragmentIds!: string[];
}

export class LookupCollectionsDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: LOOKUP_FRAGMENT_IDS_MAX })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LOOKUP_FRAGMENT_IDS_MAX)
  @IsUUID('all', { each: true })
  fragmentIds!: string[];
}

export class PageQueryDto {
  @OptionalInt({ min: 1, max: 500, default: 50, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: 10_000_000, default: 0, from: 'query' })
  offset?: number;
}

export class CollectionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ description: 'Its non-archived fragments: what its fragment listing shows' })
  fragmentCount!: number;
}

export class CollectionResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: CollectionDto }) collection!: CollectionDto;
}

export class CollectionListDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [CollectionDto] }) items!: CollectionDto[];
  @ApiProperty() count!: number;
}

export class CollectionFragmentsDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FragmentDto] }) items!: FragmentDto[];
  @ApiProperty() count!: number;
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class CollectionChangeDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ description: 'Memberships added or removed' }) changed!: number;
}

export class CollectionRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

export class FragmentCollectionsDto {
  @ApiProperty({ format: 'uuid' }) fragmentId!: string;
  @ApiProperty({ type: [CollectionRefDto] }) collections!: CollectionRefDto[];
}

export class LookupCollectionsResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FragmentCollectionsDto] }) items!: FragmentCollectionsDto[];
}

export class SuccessDto {
  @ApiProperty() success!: boolean;
}
