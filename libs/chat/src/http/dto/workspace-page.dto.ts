import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { CHAT_OFFSET_MAX, CHAT_PAGE_DEFAULT, CHAT_PAGE_MAX } from '../../chat-limits.js';

/** The query of a page of the caller's experts or embed configurations, optionally of one workspace. */
export class WorkspacePageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  workspaceId?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: CHAT_PAGE_MAX, default: CHAT_PAGE_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(CHAT_PAGE_MAX)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: CHAT_OFFSET_MAX, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(CHAT_OFFSET_MAX)
  offset?: number;
}
