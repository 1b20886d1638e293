import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import type { AgentGrant, TrustedIdentityProvider } from '@kw/contracts';
import { ID_JAG_TOKEN_TYPE, IDENTITY_TYPES } from '../../domain/agent-auth/oauth.js';

/** A compact JWT is at most this long here (an ID-JAG or SET is a few kilobytes). */
export const JWT_MAX_LENGTH = 16_384;

export class RegisterAgentDto {
  @ApiProperty({ enum: IDENTITY_TYPES })
  @IsIn(IDENTITY_TYPES)
  type!: (typeof IDENTITY_TYPES)[number];

  @ApiPropertyOptional({ example: ID_JAG_TOKEN_TYPE, description: 'identity_assertion: the assertion type' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  assertion_type?: string;

  @ApiPropertyOptional({ description: 'identity_assertion: the ID-JAG (compact JWT)' })
  @IsOptional()
  @IsString()
  @MaxLength(JWT_MAX_LENGTH)
  assertion?: string;

  @ApiPropertyOptional({ example: 'ada@example.com', description: 'service_auth: the email of the account' })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  login_hint?: string;

  @ApiPropertyOptional({ example: 'fragments:read search:read', description: 'service_auth: space-separated scopes' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  scope?: string;

  @ApiPropertyOptional({ example: 'Research assistant', description: 'service_auth: the name shown on the claim page' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  client_name?: string;
}

export class ClaimWindowDto {
  @ApiProperty({ example: 'https://kw.example.com/agent/claim/4f0c…' }) verification_uri!: string;
  @ApiProperty({ description: 'Seconds left in the user-code window' }) expires_in!: number;
}

export class RegisteredAgentDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'identity_assertion: the account bound' }) user_id?: string;
  @ApiPropertyOptional({ description: "identity_assertion: the agent (the ID-JAG's client_id)" }) agent_name?: string;
  @ApiPropertyOptional({ type: [String] }) scopes?: string[];
  @ApiPropertyOptional({ type: ClaimWindowDto }) claim?: ClaimWindowDto;
  @ApiPropertyOptional({ description: 'service_auth: poll the token endpoint with it' }) claim_token?: string;
  @ApiPropertyOptional({ description: 'service_auth: seconds the claim token stays valid' }) expires_in?: number;
  @ApiPropertyOptional({ description: 'service_auth: seconds between polls' }) interval?: number;
}

export class RenewClaimDto {
  @ApiProperty() @IsString() @MaxLength(100) claim_token!: string;
  @ApiProperty() @IsString() @MaxLength(254) email!: string;
}

export class RenewedClaimDto {
  @ApiProperty({ type: ClaimWindowDto }) claim!: ClaimWindowDto;
  @ApiProperty() expires_in!: number;
  @ApiProperty() interval!: number;
}

export class TokenRequestDto {
  @ApiProperty({ description: 'jwt-bearer, the claim grant, or refresh_token' }) grant_type!: string;
  @ApiPropertyOptional({ description: 'jwt-bearer: the ID-JAG' }) assertion?: string;
  @ApiPropertyOptional({ description: 'claim grant: the claim token' }) claim_token?: string;
  @ApiPropertyOptional() refresh_token?: string;
  @ApiPropertyOptional({ description: 'Space-separated scopes, at most those of the grant' }) scope?: string;
}

export class TokenAnswerDto {
  @ApiProperty({ example: 'kwa_…' }) access_token!: string;
  @ApiProperty({ example: 'Bearer' }) token_type!: string;
  @ApiProperty({ example: 3600 }) expires_in!: number;
  @ApiProperty({ example: 'kwr_…' }) refresh_token!: string;
  @ApiProperty({ example: 'fragments:read search:read' }) scope!: string;
}

export class RevokeRequestDto {
  @ApiProperty() token!: string;
  @ApiPropertyOptional({ enum: ['access_token', 'refresh_token'] }) token_type_hint?: string;
}

export class ClaimDecisionDto {
  @ApiProperty({ enum: ['approve', 'deny'] }) @IsIn(['approve', 'deny']) decision!: 'approve' | 'deny';
  @ApiProperty({ description: 'The code the claim page shows' }) @IsString() @MaxLength(20) userCode!: string;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() acceptTerms?: boolean;
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

export class ClaimDecidedDto {
  @ApiProperty({ enum: ['approved', 'denied'] }) status!: string;
}

export class AgentGrantDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() agentName!: string;
  @ApiProperty({ enum: IDENTITY_TYPES }) method!: string;
  @ApiPropertyOptional({ description: 'The identity provider (identity assertions)' }) issuer?: string;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiProperty() allWorkspaces!: boolean;
  @ApiProperty({ type: [String], format: 'uuid' }) workspaceIds!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) lastUsedAt?: string;
}

export class AgentGrantListDto {
  @ApiProperty({ type: [AgentGrantDto] }) grants!: AgentGrantDto[];
}

export const toAgentGrantDto = (g: AgentGrant): AgentGrantDto => ({
  id: g.id,
  agentName: g.agentName,
  method: g.method,
  issuer: g.issuer,
  scopes: g.scopes,
  allWorkspaces: g.allWorkspaces,
  workspaceIds: g.workspaceIds,
  createdAt: g.createdAt,
  lastUsedAt: g.lastUsedAt,
});

export class AddTrustedIssuerDto {
  @ApiProperty({ example: 'https://idp.example.com' }) @IsString() @MaxLength(500) issuer!: string;
  @ApiPropertyOptional({ example: 'https://idp.example.com/.well-known/jwks.json' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  jwksUri?: string;
  @ApiPropertyOptional({ description: 'Inline public keys: {keys: [...]} (instead of jwksUri)' })
  @IsOptional()
  jwks?: object;
  @ApiPropertyOptional({
    type: [String],
    example: ['ES256'],
    description: 'Asymmetric algorithms; default RS256 and ES256',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(11)
  @IsString({ each: true })
  @MaxLength(10, { each: true })
  algorithms?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Only these agents (ID-JAG client_id); empty: any' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  allowedClientIds?: string[];
}

export class TrustedIssuerDto {
  @ApiPropertyOptional({ description: 'Absent for issuers declared in configuration (they cannot be removed here)' })
  id?: string;
  @ApiProperty() issuer!: string;
  @ApiPropertyOptional() jwksUri?: string;
  @ApiPropertyOptional({ description: 'Inline JWKS' }) jwks?: object;
  @ApiProperty({ type: [String] }) algorithms!: string[];
  @ApiProperty({ type: [String] }) allowedClientIds!: string[];
  @ApiProperty({ enum: ['config', 'admin'] }) source!: string;
}

export class TrustedIssuerListDto {
  @ApiProperty({ type: [TrustedIssuerDto] }) issuers!: TrustedIssuerDto[];
}

export const toTrustedIssuerDto = (i: TrustedIdentityProvider): TrustedIssuerDto => ({
  // Configured issuers have no id (the contract's empty string): left out, as docs say.
  ...(i.id ? { id: i.id } : {}),
  issuer: i.issuer,
  jwksUri: i.jwksUri,
  jwks: i.jwks ? (JSON.parse(i.jwks) as object) : undefined,
  algorithms: i.algorithms,
  allowedClientIds: i.allowedClientIds,
  source: i.source,
});
