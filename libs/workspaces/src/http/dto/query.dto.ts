import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  DISCOVER_LIMIT_DEFAULT,
  DISCOVER_LIMIT_MAX,
  NOTIFICATIONS_LIMIT_DEFAULT,
  NOTIFICATIONS_LIMIT_MAX,
} from '../../workspaces-limits.js';

/** Query strings arrive as text: numbers are converted here, then range-checked. */
class OffsetQueryDto {
  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
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

  @ApiPropertyOptional({ minimum: 1, maximum: DISCOVER_LIMIT_MAX, default: DISCOVER_LIMIT_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(DISCOVER_LIMIT_MAX)
  limit?: number;
}

export class NotificationsQueryDto extends OffsetQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Only unread notifications' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  unreadOnly?: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: NOTIFICATIONS_LIMIT_MAX, default: NOTIFICATIONS_LIMIT_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(NOTIFICATIONS_LIMIT_MAX)
  limit?: number;
}
