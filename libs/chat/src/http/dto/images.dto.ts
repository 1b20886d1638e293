import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsIn, IsInt, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { CHAT_MODEL_ID_MAX, IMAGE_N, IMAGE_PROMPT_MAX } from '../../chat-limits.js';

export class ImageGenerationRequestDto {
  @ApiProperty({ minLength: 1, maxLength: IMAGE_PROMPT_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(IMAGE_PROMPT_MAX)
  prompt!: string;

  @ApiPropertyOptional({ description: 'An image model of GET /api/v1/models (default: the first one)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(CHAT_MODEL_ID_MAX)
  model?: string;

  @ApiPropertyOptional({ enum: [IMAGE_N], description: 'Must be 1' })
  @IsOptional()
  @IsInt()
  @Equals(IMAGE_N, { message: 'n must be 1' })
  n?: number;

  @ApiPropertyOptional({ pattern: '^[0-9]{1,5}x[0-9]{1,5}$', example: '1024x1024' })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9]{1,5}x[0-9]{1,5}$/, { message: 'size must be WIDTHxHEIGHT, e.g. 1024x1024' })
  size?: string;

  @ApiPropertyOptional({ enum: ['b64_json', 'url'], default: 'b64_json' })
  @IsOptional()
  @IsIn(['b64_json', 'url'])
  response_format?: 'b64_json' | 'url';

  @ApiPropertyOptional({ example: 'standard' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  quality?: string;

  @ApiPropertyOptional({ example: 'vivid' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  style?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;
}

class ImageDataDto {
  @ApiPropertyOptional({ description: 'response_format b64_json' }) b64_json?: string;
  @ApiPropertyOptional({ description: 'response_format url: served by the platform, unguessable, short-lived' })
  url?: string;
  @ApiPropertyOptional() revised_prompt?: string;
}

export class ImageGenerationDto {
  @ApiProperty() created!: number;
  @ApiProperty({ type: [ImageDataDto] }) data!: ImageDataDto[];
}
