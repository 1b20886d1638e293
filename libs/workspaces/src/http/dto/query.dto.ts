import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import {
  DISCOVER_LIMIT_DEFAULT,
  DISCOVER_LIMIT_MAX,
  NOTIFICATIONS_LIMIT_DEFAULT,
  NOTIFICATIONS_LIMIT_MAX,
} from '../../workspaces-limits.js';

/** Query strings arrive as text: numbers are converted here, then range-checked. */
class OffsetQueryDto {
  @OptionalInt({ min: 0, max: 1_000_000, default: 0, from: 'query' })
  offset?: number;
}

export class DiscoverQueryDto extends OffsetQueryDto {
  @ApiPropertyOptional({
    maxLength: 200,
    description: 'Case-insensitive substring of the name or description (`%` and `_` match themselves)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @OptionalInt({ min: 1, max: DISCOVER_LIMIT_MAX, default: DISCOVER_LIMIT_DEFAULT, from: 'query' })
  limit?: number;
}

export class NotificationsQueryDto extends OffsetQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Only unread notifications' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  unreadOnly?: boolean;

  @OptionalInt({ min: 1, max: NOTIFICATIONS_LIMIT_MAX, default: NOTIFICATIONS_LIMIT_DEFAULT, from: 'query' })
  limit?: number;
}
