import { ApiProperty } from '@nestjs/swagger';
import type { User } from '@kw/contracts';

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
