import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import {
  FROZEN_IDS_MAX,
  LEAF_VERSION_MAX,
  ZONE_ENDPOINT_MAX,
  ZONE_NAME_MAX,
  ZONE_REGION_MAX,
} from '../../workspaces-limits.js';

const NOT_BLANK = /\S/;
const URL_RULES = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

export const ZONE_STATUSES = ['pending', 'online', 'offline'] as const;

export class CreateHostedZoneDto {
  @ApiProperty({ minLength: 1, maxLength: ZONE_NAME_MAX, example: 'Frankfurt on-prem' })
  @IsString()
  @MinLength(1)
  @MaxLength(ZONE_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty({
    minLength: 1,
    maxLength: ZONE_REGION_MAX,
    example: 'eu-central',
    description: 'Free text: where the Leaf runs',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(ZONE_REGION_MAX)
  @Matches(NOT_BLANK, { message: 'region must not be blank' })
  region!: string;

  @ApiPropertyOptional({
    format: 'uri',
    maxLength: ZONE_ENDPOINT_MAX,
    description: 'Where clients reach the Leaf; the Leaf registers its own at enrollment (which replaces this)',
  })
  @IsOptional()
  @IsUrl(URL_RULES)
  @MaxLength(ZONE_ENDPOINT_MAX)
  endpointUrl?: string;
}

export class UpdateHostedZoneDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: ZONE_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(ZONE_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: ZONE_REGION_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(ZONE_REGION_MAX)
  @Matches(NOT_BLANK, { message: 'region must not be blank' })
  region?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    nullable: true,
    maxLength: ZONE_ENDPOINT_MAX,
    description: '`null` clears it until the Leaf registers one again',
  })
  @ValidateIf((_o, value) => value !== undefined && value !== null)
  @IsUrl(URL_RULES)
  @MaxLength(ZONE_ENDPOINT_MAX)
  endpointUrl?: string | null;
}

export class HostedZoneDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() region!: string;
  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    description: "The Leaf's endpoint: where HOSTED_ZONE_REQUIRED sends clients",
  })
  endpointUrl!: string | null;
  @ApiProperty({
    enum: ZONE_STATUSES,
    description:
      '`pending` until a Leaf enrolled; `online` while its heartbeats are recent (HOSTED_ZONE_OFFLINE_AFTER_SECONDS), else `offline`',
  })
  status!: string;
  @ApiProperty({ format: 'uuid' }) ownerId!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) enrolledAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastHeartbeatAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) leafVersion!: string | null;
  @ApiProperty({ description: 'Workspaces placed on the zone (archived ones included)' }) workspaceCount!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class HostedZoneResponseDto {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: HostedZoneDto }) hostedZone!: HostedZoneDto;
}

export class HostedZoneEnrollmentDto extends HostedZoneResponseDto {
  @ApiProperty({
    example: 'kwe_...',
    description: 'One-time enrollment token for the Leaf (`ENROLLMENT_TOKEN`); shown once, stored hashed',
  })
  enrollmentToken!: string;
  @ApiProperty({ format: 'date-time' }) enrollmentTokenExpiresAt!: string;
}

export class HostedZoneListDto {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: [HostedZoneDto] }) items!: HostedZoneDto[];
  @ApiProperty() count!: number;
}

export class HostedZoneDeletedDto {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: [String], description: 'The archived workspaces deleted with the zone' })
  deletedWorkspaceIds!: string[];
}

export class DeleteHostedZoneQueryDto {
  @ApiPropertyOptional({
    default: false,
    description: "Delete the zone's archived workspaces with it (their data lived on its Leaf)",
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  deleteArchivedWorkspaces?: boolean;
}

export class HandoffResponseDto {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ description: 'JWT (ES256) for `Authorization: Bearer` at the Leaf' }) token!: string;
  @ApiProperty({ enum: ['Bearer'] }) tokenType!: 'Bearer';
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ description: 'Seconds until expiry (HANDOFF_TOKEN_TTL_SECONDS)' }) expiresIn!: number;
  @ApiProperty({ format: 'uuid' }) hostedZoneId!: string;
  @ApiProperty({ type: String, format: 'uri', nullable: true }) endpointUrl!: string | null;
  @ApiProperty({ example: 'urn:kw:hosted-zone:00000000-0000-4000-8000-000000000000' }) audience!: string;
  @ApiProperty({ type: [String], description: 'Data-plane actions the caller may perform now (never files:*)' })
  actions!: string[];
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
}

export class JwksDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    description: 'Public JWKs (kty EC, crv P-256, kid, alg ES256, use sig)',
  })
  keys!: Record<string, unknown>[];
}

// ---------------------------------------------------------------------------------------
// Leaf-facing

export class EnrollLeafDto {
  @ApiProperty({ example: 'kwe_...' })
  @IsString()
  @MaxLength(200)
  enrollmentToken!: string;

  @ApiProperty({ format: 'uri', description: "The Leaf's public endpoint (its PUBLIC_URL)" })
  @IsUrl(URL_RULES)
  @MaxLength(ZONE_ENDPOINT_MAX)
  endpointUrl!: string;

  @ApiProperty({ maxLength: LEAF_VERSION_MAX, example: '1.198.1' })
  @IsString()
  @MaxLength(LEAF_VERSION_MAX)
  leafVersion!: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "Enroll only if the token is this zone's (the Leaf's stored zone, whose workspaces it still holds); else 409 `HOSTED_ZONE_MISMATCH` and the token stays unused",
  })
  @IsOptional()
  @IsUUID()
  hostedZoneId?: string;
}

export class EnrollLeafResponseDto {
  @ApiProperty({ format: 'uuid' }) hostedZoneId!: string;
  @ApiProperty({
    example: 'kwz_...',
    description: 'The Leaf credential for heartbeats and placement reports; shown once',
  })
  zoneCredential!: string;
  @ApiProperty({ description: '`iss` of handoff tokens' }) issuer!: string;
  @ApiProperty({ description: '`aud` of handoff tokens for this zone' }) audience!: string;
  @ApiProperty({ format: 'uri' }) jwksUri!: string;
}

export class LeafHeartbeatDto {
  @ApiPropertyOptional({ format: 'uri' })
  @IsOptional()
  @IsUrl(URL_RULES)
  @MaxLength(ZONE_ENDPOINT_MAX)
  endpointUrl?: string;

  @ApiPropertyOptional({ maxLength: LEAF_VERSION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(LEAF_VERSION_MAX)
  leafVersion?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'The workspaces the Leaf serves read-only now (it applied `frozenWorkspaceIds`)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(FROZEN_IDS_MAX)
  @IsUUID('all', { each: true })
  frozenWorkspaceIds?: string[];
}

export class PlacementDto {
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['processing', 'active'] }) status!: string;
}

export class HandoffRevocationDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'Matches `sub`; null matches any' })
  userId!: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'Matches `kw_ws`; null matches any' })
  workspaceId!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Matches `kw_cred`; null matches any' })
  credentialId!: string | null;
  @ApiProperty({
    format: 'date-time',
    description: 'Matching tokens issued at or before the second after this instant are refused',
  })
  revokedAt!: string;
}

export class LeafHeartbeatResponseDto {
  @ApiProperty({ format: 'uuid' }) hostedZoneId!: string;
  @ApiProperty({ type: [PlacementDto], description: 'Placements to provision (status processing)' })
  placements!: PlacementDto[];
  @ApiProperty({
    type: [HandoffRevocationDto],
    description:
      'Handoff tokens to refuse before they expire: the whole current list (entries younger than the token lifetime, and older ones while a token they match, issued under a longer lifetime, has not expired), replacing the previous one',
  })
  revocations!: HandoffRevocationDto[];
  @ApiProperty({
    type: [String],
    description: "The kids of the Cloud's JWKS now: a Leaf whose key set differs fetches the JWKS again at once",
  })
  handoffKeyIds!: string[];
  @ApiProperty({
    type: [String],
    description: 'Workspaces moving out of the zone: serve them read-only (the whole list, every time)',
  })
  frozenWorkspaceIds!: string[];
  @ApiProperty({
    type: [String],
    description:
      'Workspaces whose copy on the zone is no longer theirs (moved away, or a move here aborted): purge each, then report it removed',
  })
  removedWorkspaceIds!: string[];
  @ApiProperty({
    description:
      '`iss` of the handoff tokens the Cloud issues now (its PUBLIC_URL): a Leaf enrolled under another one takes it',
  })
  issuer!: string;
  @ApiProperty({
    description: "Where the Cloud publishes its keys now (the Leaf fetches that path at CLOUD_URL's origin)",
  })
  jwksUri!: string;
}

export class RotateHandoffKeysResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ description: 'The new signing key' }) kid!: string;
  @ApiProperty({ type: [String], description: 'The keys withdrawn: tokens they signed no longer verify' })
  revokedKids!: string[];
}

export class PlacementResponseDto {
  @ApiProperty({ type: PlacementDto }) placement!: PlacementDto;
}
