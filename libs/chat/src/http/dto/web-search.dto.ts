import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import { WEB_SEARCH_QUERY_MAX, WEB_SEARCH_RESULTS_DEFAULT, WEB_SEARCH_RESULTS_MAX } from '../../chat-limits.js';

export class WebSearchRequestDto {
  @ApiProperty({ minLength: 1, maxLength: WEB_SEARCH_QUERY_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(WEB_SEARCH_QUERY_MAX)
  query!: string;

  @OptionalInt({ min: 1, max: WEB_SEARCH_RESULTS_MAX, default: WEB_SEARCH_RESULTS_DEFAULT, from: 'body' })
  num_results?: number;

  @ApiPropertyOptional({ enum: ['neural', 'keyword', 'auto'], default: 'auto' })
  @IsOptional()
  @IsIn(['neural', 'keyword', 'auto'])
  type?: 'neural' | 'keyword' | 'auto';

  @ApiPropertyOptional({ default: false, description: 'Include the page text where the provider has it' })
  @IsOptional()
  @IsBoolean()
  include_text?: boolean;
}

class WebSearchResultDto {
  @ApiProperty() title!: string;
  @ApiProperty() url!: string;
  @ApiPropertyOptional() snippet?: string;
  @ApiPropertyOptional() text?: string;
  @ApiPropertyOptional() published_date?: string;
  @ApiPropertyOptional() score?: number;
}

export class WebSearchResponseDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ description: 'The provider that answered, e.g. searxng or exa' }) provider!: string;
  @ApiProperty({ type: [WebSearchResultDto] }) data!: WebSearchResultDto[];
}
