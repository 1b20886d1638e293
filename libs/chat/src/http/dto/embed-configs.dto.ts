import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WorkspacePageQueryDto } from './workspace-page.dto.js';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  EMBED_CONFIG_NAME_MAX,
  EMBED_CONTEXT_TYPES,
  EMBED_DEFAULT_CONTEXT_MAX,
  EMBED_FEEDBACK_MODES,
  EMBED_ISSUER_MAX,
  EMBED_KEY_LABEL_MAX,
  EMBED_KEY_ORIGINS_MAX,
  EMBED_MODEL_MAX,
  EMBED_ORIGIN_MAX,
  EMBED_SYSTEM_PROMPT_MAX,
  EMBED_THEMES,
} from '../../chat-limits.js';

export class WorkspaceFilesFeatureDto {
  @ApiPropertyOptional({ default: false, description: 'The host page may read and write workspace files' })
  @IsOptional()
  @IsBoolean()
  exposeToParent?: boolean;
}

export class EmbedFeaturesDto {
  @ApiPropertyOptional({ enum: EMBED_FEEDBACK_MODES, default: 'off' })
  @IsOptional()
  @IsIn(EMBED_FEEDBACK_MODES)
  feedbackMode?: string;

  @ApiPropertyOptional({ default: false, description: 'The agent may pause a turn to ask a structured question' })
  @IsOptional()
  @IsBoolean()
  structuredQuestions?: boolean;

  @ApiPropertyOptional({ default: false, description: 'The agent may search the web (needs web-search access)' })
  @IsOptional()
  @IsBoolean()
  webSearch?: boolean;

  @ApiPropertyOptional({
    enum: EMBED_THEMES,
    default: 'auto',
    description: 'The widget’s colours; auto follows the visitor’s system',
  })
  @IsOptional()
  @IsIn(EMBED_THEMES)
  theme?: string;

  @ApiPropertyOptional({ type: WorkspaceFilesFeatureDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => WorkspaceFilesFeatureDto)
  workspaceFiles?: WorkspaceFilesFeatureDto;
}

export class ContextItemDto {
  @ApiProperty({ enum: EMBED_CONTEXT_TYPES })
  @IsIn(EMBED_CONTEXT_TYPES)
  contextType!: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  contextId!: string;
}

export class TrustedIssuerDto {
  @ApiProperty({ description: 'The `iss` of the host page’s JWTs', maxLength: EMBED_ISSUER_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_ISSUER_MAX)
  issuer!: string;

  @ApiProperty({ description: 'The `aud` they must carry', maxLength: EMBED_ISSUER_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_ISSUER_MAX)
  audience!: string;

  @ApiPropertyOptional({
    description:
      'Where the issuer publishes its keys (or give `jwks`): a public `https` URL. Plain http, credentials, `localhost` and literal loopback, private or link-local addresses are refused (400); the name is resolved and checked again at every fetch',
    maxLength: EMBED_ISSUER_MAX,
  })
  @IsOptional()
  @IsString()
  @MaxLength(EMBED_ISSUER_MAX)
  jwksUrl?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The issuer’s keys as a JWKS document',
  })
  @IsOptional()
  @IsObject()
  jwks?: Record<string, unknown>;
}

class ConfigFieldsDto {
  @ApiPropertyOptional({
    maxLength: EMBED_MODEL_MAX,
    description: 'A chat model of GET /api/v1/models ("" for the first one)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(EMBED_MODEL_MAX)
  model?: string;

  @ApiPropertyOptional({ description: 'The embed chat refuses another `model` when true' })
  @IsOptional()
  @IsBoolean()
  modelLocked?: boolean;

  @ApiPropertyOptional({ type: EmbedFeaturesDto, description: 'Replaced as a whole' })
  @IsOptional()
  @ValidateNested()
  @Type(() => EmbedFeaturesDto)
  features?: EmbedFeaturesDto;

  @ApiPropertyOptional({ description: 'One of your experts over the same workspace ("" for none)' })
  @IsOptional()
  @IsString()
  @ValidateIf((_o, v) => v !== '')
  @IsUUID()
  mainExpertId?: string;

  @ApiPropertyOptional({ description: 'Store no conversation; the client carries X-Embed-Session-Id' })
  @IsOptional()
  @IsBoolean()
  stateless?: boolean;

  @ApiPropertyOptional({ maxLength: EMBED_SYSTEM_PROMPT_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(EMBED_SYSTEM_PROMPT_MAX)
  systemPrompt?: string;

  @ApiPropertyOptional({ type: [ContextItemDto], maxItems: EMBED_DEFAULT_CONTEXT_MAX })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EMBED_DEFAULT_CONTEXT_MAX)
  @ValidateNested({ each: true })
  @Type(() => ContextItemDto)
  defaultContext?: ContextItemDto[];
}

export class CreateEmbedConfigDto extends ConfigFieldsDto {
  @ApiProperty({ format: 'uuid', description: 'A workspace you can read' })
  @IsUUID()
  workspaceId!: string;

  @ApiProperty({ minLength: 1, maxLength: EMBED_CONFIG_NAME_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_CONFIG_NAME_MAX)
  name!: string;

  @ApiPropertyOptional({ type: TrustedIssuerDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => TrustedIssuerDto)
  trustedIssuer?: TrustedIssuerDto;
}

export class UpdateEmbedConfigDto extends ConfigFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: EMBED_CONFIG_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_CONFIG_NAME_MAX)
  name?: string;

  @ApiPropertyOptional({ type: TrustedIssuerDto, nullable: true, description: 'null removes it' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @ValidateNested()
  @Type(() => TrustedIssuerDto)
  trustedIssuer?: TrustedIssuerDto | null;
}

export class ListEmbedConfigsQueryDto extends WorkspacePageQueryDto {
  @ApiPropertyOptional({ enum: ['active', 'archived'], default: 'active' })
  @IsOptional()
  @IsIn(['active', 'archived'])
  status?: string;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      "Every creator's configurations over `workspaceId` (required then), for the workspace's owners (403 for other members)",
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  allCreators?: boolean;
}

class EmbedFeaturesViewDto {
  @ApiProperty({ enum: EMBED_FEEDBACK_MODES }) feedbackMode!: string;
  @ApiProperty() structuredQuestions!: boolean;
  @ApiProperty() webSearch!: boolean;
  @ApiProperty({ type: WorkspaceFilesFeatureDto }) workspaceFiles!: { exposeToParent: boolean };
  @ApiProperty({ enum: EMBED_THEMES }) theme!: string;
}

class TrustedIssuerViewDto {
  @ApiProperty() issuer!: string;
  @ApiProperty() audience!: string;
  @ApiPropertyOptional() jwksUrl?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) jwks?: Record<string, unknown>;
}

export class EmbedConfigDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['active', 'archived'] }) status!: string;
  @ApiProperty() model!: string;
  @ApiProperty() modelLocked!: boolean;
  @ApiProperty({ type: EmbedFeaturesViewDto }) features!: EmbedFeaturesViewDto;
  @ApiProperty({ description: '"" for none' }) mainExpertId!: string;
  @ApiProperty() stateless!: boolean;
  @ApiProperty() systemPrompt!: string;
  @ApiProperty({ type: [ContextItemDto] }) defaultContext!: ContextItemDto[];
  @ApiProperty({ type: TrustedIssuerViewDto, nullable: true }) trustedIssuer!: TrustedIssuerViewDto | null;
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class EmbedConfigEnvelopeDto {
  @ApiProperty({ type: EmbedConfigDto }) config!: EmbedConfigDto;
}

export class EmbedConfigListDto {
  @ApiProperty({ type: [EmbedConfigDto] }) configs!: EmbedConfigDto[];
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class CreateEmbedKeyDto {
  @ApiProperty({ minLength: 1, maxLength: EMBED_KEY_LABEL_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_KEY_LABEL_MAX)
  label!: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: EMBED_KEY_ORIGINS_MAX,
    description:
      'Origins (https://example.com) whose pages may use the key, each listed (no paths, no wildcards); a non-public key needs at least one',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EMBED_KEY_ORIGINS_MAX)
  @IsString({ each: true })
  @MaxLength(EMBED_ORIGIN_MAX, { each: true })
  allowedDomains?: string[];

  @ApiPropertyOptional({ default: false, description: 'Usable from any origin' })
  @IsOptional()
  @IsBoolean()
  public?: boolean;

  @ApiPropertyOptional({ format: 'date-time', description: 'In the future; absent for no expiry' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;

  @ApiPropertyOptional({
    writeOnly: true,
    description: 'A personal access token of yours that identifies the user when the host page sends no JWT',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  scopedToken?: string;
}

export class UpdateEmbedKeyDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: EMBED_KEY_LABEL_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_KEY_LABEL_MAX)
  label?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: EMBED_KEY_ORIGINS_MAX,
    description: 'Replaced as a whole; origins as on creation (no paths, no wildcards)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EMBED_KEY_ORIGINS_MAX)
  @IsString({ each: true })
  @MaxLength(EMBED_ORIGIN_MAX, { each: true })
  allowedDomains?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  public?: boolean;

  @ApiPropertyOptional({ format: 'date-time', nullable: true, description: 'null removes the expiry' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsISO8601({ strict: true })
  expiresAt?: string | null;
}

export class EmbedKeyDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) configId!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ type: [String] }) allowedDomains!: string[];
  @ApiProperty() public!: boolean;
  @ApiProperty({ format: 'date-time', nullable: true }) expiresAt!: string | null;
  @ApiProperty({ description: 'The first characters of the token, to recognise it' }) tokenPrefix!: string;
  @ApiProperty() hasScopedToken!: boolean;
  @ApiProperty({ format: 'date-time', nullable: true }) revokedAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class EmbedKeyListDto {
  @ApiProperty({ type: [EmbedKeyDto] }) keys!: EmbedKeyDto[];
}

export class EmbedKeyEnvelopeDto {
  @ApiProperty({ type: EmbedKeyDto }) key!: EmbedKeyDto;
}

export class CreatedEmbedKeyDto extends EmbedKeyEnvelopeDto {
  @ApiProperty({ description: 'The key token (`kwek_...`): shown this once, stored only as a hash' }) token!: string;
}
