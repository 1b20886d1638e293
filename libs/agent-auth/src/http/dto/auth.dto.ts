import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { UserDto } from './user.dto.js';

export class SignInDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsString()
  @MinLength(3)
  @MaxLength(320)
  email!: string;

  @ApiProperty({ format: 'password' })
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  password!: string;
}

export class SignInResponseDto {
  @ApiProperty({ type: UserDto }) user!: UserDto;
  @ApiProperty({ format: 'date-time', description: 'When the session ends' }) expiresAt!: string;
}

export class CredentialDto {
  @ApiProperty({ enum: ['pat', 'session', 'agent'] }) kind!: string;
  @ApiProperty({ format: 'uuid', description: 'The token, the session, or for an agent its grant' }) id!: string;
  @ApiPropertyOptional({ description: "The token's name, or the agent's" }) name?: string;
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
  @ApiProperty({ type: [String], example: ['fragments:read'] }) scopes!: string[];
  @ApiProperty({
    oneOf: [
      { type: 'string', enum: ['all'] },
      { type: 'array', items: { type: 'string', format: 'uuid' } },
    ],
    description: '`all`, or the workspace ids the credential is restricted to',
  })
  workspaces!: 'all' | string[];
}

export class ValidatedUserDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty() displayName!: string;
}

export class ValidateTokenResponseDto {
  @ApiProperty({ enum: [true] }) valid!: true;
  @ApiProperty({ type: CredentialDto }) credential!: CredentialDto;
  @ApiProperty({ type: ValidatedUserDto }) user!: ValidatedUserDto;
}

export class CreateUserDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsString()
  @MaxLength(320)
  @Matches(/^[^\s@]+@[^\s@]+$/, { message: 'email must be an email address' })
  email!: string;

  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: 100 })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  displayName!: string;

  @ApiProperty({ format: 'password', minLength: 12, maxLength: 1024 })
  @IsString()
  @MinLength(12)
  @MaxLength(1024)
  password!: string;
}
