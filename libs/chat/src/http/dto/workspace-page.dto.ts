import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import { CHAT_OFFSET_MAX, CHAT_PAGE_DEFAULT, CHAT_PAGE_MAX } from '../../chat-limits.js';

/** The query of a page of the caller's experts or embed configurations, optionally of one workspace. */
export class WorkspacePageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  workspaceId?: string;

  @OptionalInt({ min: 1, max: CHAT_PAGE_MAX, default: CHAT_PAGE_DEFAULT, from: 'query' })
  limit?: number;

  @OptionalInt({ min: 0, max: CHAT_OFFSET_MAX, default: 0, from: 'query' })
  offset?: number;
}
