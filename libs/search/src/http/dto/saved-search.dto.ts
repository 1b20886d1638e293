import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import { SearchResultsDto } from './search.dto.js';
import { RETRIEVAL_DEPTH, SEARCH_LIMIT_MAX, SEARCH_MODES, SEARCH_QUERY_MAX } from '../../search-limits.js';

export class CreateSavedSearchDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ minLength: 1, maxLength: 200 }) @IsString() @MinLength(1) @MaxLength(200) name!: string;
  @ApiProperty({ minLength: 1, maxLength: SEARCH_QUERY_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(SEARCH_QUERY_MAX)
  q!: string;
  @ApiPropertyOptional({ enum: SEARCH_MODES, default: 'hybrid' }) @IsOptional() @IsIn(SEARCH_MODES) mode?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  types?: string[];
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  tags?: string[];
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() collectionId?: string;
}

export class ListSavedSearchesQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
}

export class RunSavedSearchQueryDto {
  @OptionalInt({ min: 1, max: SEARCH_LIMIT_MAX, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: RETRIEVAL_DEPTH, from: 'query' })
  offset?: number;
}

export class SavedSearchDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty() q!: string;
  @ApiProperty({ enum: SEARCH_MODES }) mode!: string;
  @ApiProperty({ type: [String] }) types!: string[];
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiPropertyOptional({ format: 'uuid' }) collectionId?: string;
  @ApiProperty() createdAt!: string;
}

export class SavedSearchResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: SavedSearchDto }) savedSearch!: SavedSearchDto;
}

export class SavedSearchListDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [SavedSearchDto] }) items!: SavedSearchDto[];
  @ApiProperty() count!: number;
}

export class SavedSearchRunDto extends SearchResultsDto {
  @ApiProperty({ type: SavedSearchDto }) savedSearch!: SavedSearchDto;
}
