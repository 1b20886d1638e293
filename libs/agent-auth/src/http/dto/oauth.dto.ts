import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import type { Application } from '@kw/contracts';
import { OptionalInt } from '@kw/platform-http';

export class AuthorizationDecisionDto {
  @ApiProperty({ enum: ['approve', 'deny'] }) @IsIn(['approve', 'deny']) decision!: 'approve' | 'deny';
  @ApiPropertyOptional({ description: 'Ignored here (claims only)' })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  userCode?: string;
  @ApiPropertyOptional({ description: 'Ignored here (claims only)' }) @IsOptional() acceptTerms?: boolean;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  scopes?: string[];
  @ApiPropertyOptional({ type: [String], format: 'uuid', description: 'Absent: every workspace of the account' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsUUID('all', { each: true })
  workspaceIds?: string[];
}

export class AuthorizationDecidedDto {
  @ApiProperty({ description: 'Where the browser goes now: the redirect URI with code and state, or an error' })
  redirectTo!: string;
}

export class ApplicationDto {
  @ApiProperty({ format: 'uuid', description: 'Also the OAuth client_id' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiPropertyOptional() homepageUrl?: string;
  @ApiProperty({ type: [String] }) redirectUris!: string[];
  @ApiProperty({ enum: ['confidential', 'public'] }) clientType!: string;
  @ApiProperty({ enum: ['client_secret_basic', 'client_secret_post', 'none'] }) tokenEndpointAuthMethod!: string;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiPropertyOptional({ example: 'kws_AbCd1234', description: 'The first characters of the current secret' })
  secretPrefix?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Until when the previous secret still works' })
  previousSecretExpiresAt?: string;
  @ApiProperty({ enum: ['active', 'disabled'] }) status!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) lastUsedAt?: string;
}

export class ApplicationListDto {
  @ApiProperty({ type: [ApplicationDto] }) applications!: ApplicationDto[];
}

export class CreatedApplicationDto {
  @ApiProperty({ type: ApplicationDto }) application!: ApplicationDto;
  @ApiPropertyOptional({
    example: 'kws_…',
    description: 'Confidential clients: the secret, shown in this response only',
  })
  clientSecret?: string;
}

export class CreateApplicationDto {
  @ApiProperty({ maxLength: 100 }) @IsString() @MaxLength(100) name!: string;
  @ApiPropertyOptional({ maxLength: 1000 }) @IsOptional() @IsString() @MaxLength(1000) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2000) homepageUrl?: string;
  @ApiProperty({
    type: [String],
    description: 'https; http only to 127.0.0.1, [::1] or localhost (any port); or a reverse-domain private scheme',
  })
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  redirectUris!: string[];
  @ApiPropertyOptional({ enum: ['confidential', 'public'], default: 'confidential' })
  @IsOptional()
  @IsIn(['confidential', 'public'])
  clientType?: 'confidential' | 'public';
  @ApiPropertyOptional({
    type: [String],
    description: 'Scopes it may ask for; omitted: the agent defaults; an empty list is refused',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  scopes?: string[];
}

export class UpdateApplicationDto {
  @ApiPropertyOptional({ maxLength: 100 }) @IsOptional() @IsString() @MaxLength(100) name?: string;
  @ApiPropertyOptional({ maxLength: 1000 }) @IsOptional() @IsString() @MaxLength(1000) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2000) homepageUrl?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  redirectUris?: string[];
  @ApiPropertyOptional({ type: [String], description: 'An empty list is refused' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  scopes?: string[];
  @ApiPropertyOptional({ enum: ['active', 'disabled'] })
  @IsOptional()
  @IsIn(['active', 'disabled'])
  status?: 'active' | 'disabled';
}

export class RotateApplicationSecretDto {
  @OptionalInt({ min: 0, max: 168, default: 24, description: 'Hours the previous secret keeps working', from: 'body' })
  overlapHours?: number;
}

export class RotatedSecretDto {
  @ApiProperty({ type: ApplicationDto }) application!: ApplicationDto;
  @ApiProperty({ example: 'kws_…', description: 'The new secret, shown in this response only' }) clientSecret!: string;
}

export class ClientRegistrationDto {
  @ApiProperty({ type: [String] }) redirect_uris!: string[];
  @ApiPropertyOptional() client_name?: string;
  @ApiPropertyOptional({ enum: ['none', 'client_secret_basic', 'client_secret_post'] })
  token_endpoint_auth_method?: string;
  @ApiPropertyOptional({ type: [String] }) grant_types?: string[];
  @ApiPropertyOptional({ type: [String] }) response_types?: string[];
  @ApiPropertyOptional() scope?: string;
  @ApiPropertyOptional() client_uri?: string;
}

export class ClientRegisteredDto extends ClientRegistrationDto {
  @ApiProperty({ format: 'uuid' }) client_id!: string;
  @ApiPropertyOptional({ description: 'Confidential clients only; shown once' }) client_secret?: string;
  @ApiProperty() client_id_issued_at!: number;
  @ApiPropertyOptional({ description: '0: the secret does not expire' }) client_secret_expires_at?: number;
}

export const toApplicationDto = (a: Application): ApplicationDto => ({
  id: a.id,
  name: a.name,
  description: a.description,
  homepageUrl: a.homepageUrl,
  redirectUris: a.redirectUris,
  clientType: a.clientType,
  tokenEndpointAuthMethod: a.tokenEndpointAuthMethod,
  scopes: a.scopes,
  secretPrefix: a.secretPrefix,
  previousSecretExpiresAt: a.previousSecretExpiresAt,
  status: a.status,
  createdAt: a.createdAt,
  lastUsedAt: a.lastUsedAt,
});
