import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import type { User } from '@kw/contracts';
import { USERS_PAGE_MAX } from '../../domain/accounts/users-page.js';

export class UserDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'ada@example.com' }) email!: string;
  @ApiProperty({ example: 'Ada Lovelace' }) displayName!: string;
  @ApiProperty({ enum: ['active', 'disabled'] }) status!: string;
  @ApiProperty({ description: 'Platform administrator (may create accounts)' }) platformAdmin!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class UserEnvelopeDto {
  @ApiProperty({ type: UserDto }) user!: UserDto;
}

export function toUserDto(user: User | undefined): UserDto {
  if (!user) throw new Error('identity service answered without a user');
  return {
    id: user.id,
    email: user.email,
    displayName: user.displayName,
    status: user.status,
    platformAdmin: user.platformAdmin,
    createdAt: user.createdAt,
  };
}

export class ListUsersQueryDto {
  @ApiPropertyOptional({ description: 'Part of the email, case-insensitive', maxLength: 320 })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({ enum: ['active', 'disabled'] })
  @IsOptional()
  @IsIn(['active', 'disabled'])
  status?: 'active' | 'disabled';

  @OptionalInt({ min: 1, max: USERS_PAGE_MAX, default: 50, from: 'query' })
  limit?: number;

  @OptionalInt({ min: 0, max: 1_000_000, default: 0, from: 'query' })
  offset?: number;
}

export class UserListDto {
  @ApiProperty({ type: [UserDto] }) users!: UserDto[];
  @ApiProperty({ description: 'Accounts matching the filter, all pages' }) totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class UpdateUserDto {
  @ApiProperty({
    enum: ['active', 'disabled'],
    description: 'disabled: every credential of the account stops working; active: re-enabled',
  })
  @IsIn(['active', 'disabled'])
  status!: 'active' | 'disabled';
}
