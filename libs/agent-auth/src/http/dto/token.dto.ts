import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import type { PersonalAccessToken } from '@kw/contracts';

const SCOPES_DESCRIPTION = 'Scopes (actions, or `*`): see the scope vocabulary in docs/authentication.md';

export class TokenDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'CI importer' }) name!: string;
  @ApiProperty({
    example: 'kwp_AbCd1234',
    description: 'First characters of the token, to recognise it. The secret itself is never shown again.',
  })
  displayPrefix!: string;
  @ApiProperty({ type: [String], example: ['fragments:read', 'fragments:write'] }) scopes!: string[];
  @ApiProperty({ description: 'True: every workspace the user can reach; false: only workspaceIds' })
  allWorkspaces!: boolean;
  @ApiProperty({ type: [String], format: 'uuid' }) workspaceIds!: string[];
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) lastUsedAt?: string;
  @ApiPropertyOptional() lastUsedIp?: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class TokenListDto {
  @ApiProperty({ type: [TokenDto] }) tokens!: TokenDto[];
}

export class CreatedTokenDto extends TokenDto {
  @ApiProperty({ example: 'kwp_…', description: 'The secret. Shown in this response only; store it now.' })
  token!: string;
  @ApiProperty({ type: [String], description: 'Requested scopes your credential does not hold: not granted' })
  droppedScopes!: string[];
  @ApiProperty({ type: [String], description: 'Requested workspaces your credential does not reach: not granted' })
  droppedWorkspaceIds!: string[];
}

export class CreateTokenDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'CI importer' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @ApiProperty({ type: [String], description: SCOPES_DESCRIPTION, example: ['fragments:read'] })
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  scopes!: string[];

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'Restrict the token to these workspaces. Absent: every workspace the user can reach',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsUUID('all', { each: true })
  workspaceIds?: string[];

  @ApiPropertyOptional({
    format: 'date-time',
    description: "Expiry, in the future. Absent: no expiry (or the creating token's own)",
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;
}

/**
 * A PATCH field that may be absent but not null: null would read as "remove it", which a
 * token's name, scopes, workspaces and expiry do not allow (a 200 that changed nothing lied).
 */
const Present = () => ValidateIf((_object, value) => value !== undefined);

export class UpdateTokenDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Present()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'New expiry, in the future. It cannot be removed (null is refused)',
  })
  @Present()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 timestamp in the future (an expiry cannot be removed)' })
  expiresAt?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Narrowing only: a scope the token does not have is refused (400)',
  })
  @Present()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  scopes?: string[];

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'Narrowing only: restrict the token to these workspaces (a subset of what it reaches)',
  })
  @Present()
  @IsArray()
  @ArrayMaxSize(200)
  @IsUUID('all', { each: true })
  workspaceIds?: string[];
}

export class TokenUsageDayDto {
  @ApiProperty({ example: '2026-11-22', description: 'UTC day' }) day!: string;
  @ApiProperty() requests!: number;
}

export class TokenAnalyticsDto {
  @ApiProperty({ type: [TokenUsageDayDto], description: 'The last 30 UTC days, oldest first' })
  requestsPerDay!: TokenUsageDayDto[];
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastUsedAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) lastUsedIp!: string | null;
  @ApiProperty() totalRequests!: number;
}

export function toTokenDto(token: PersonalAccessToken | undefined): TokenDto {
  if (!token) throw new Error('identity service answered without a token');
  return {
    id: token.id,
    name: token.name,
    displayPrefix: token.displayPrefix,
    scopes: token.scopes,
    allWorkspaces: token.allWorkspaces,
    workspaceIds: token.workspaceIds,
    ...(token.expiresAt !== undefined ? { expiresAt: token.expiresAt } : {}),
    ...(token.lastUsedAt !== undefined ? { lastUsedAt: token.lastUsedAt } : {}),
    ...(token.lastUsedIp !== undefined ? { lastUsedIp: token.lastUsedIp } : {}),
    createdAt: token.createdAt,
  };
}
