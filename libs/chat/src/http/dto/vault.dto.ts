import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import {
  VAULT_ACCESS_LOG_MAX,
  VAULT_SECRET_DESCRIPTION_MAX,
  VAULT_SECRET_NAME_MAX,
  VAULT_SECRET_PROVIDER_MAX,
  VAULT_SECRET_TYPES,
  VAULT_SECRET_VALUE_MAX_BYTES,
} from '../../chat-limits.js';

/** A secret's metadata. The value is write-only and never part of an answer. */
export class SecretDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: VAULT_SECRET_TYPES }) type!: string;
  @ApiProperty({ description: 'For api-key: the provider id whose calls use it (bring your own key)' })
  provider!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class SecretEnvelopeDto {
  @ApiProperty({ type: SecretDto }) secret!: SecretDto;
}

export class SecretListDto {
  @ApiProperty({ type: [SecretDto] }) secrets!: SecretDto[];
}

export class CreateSecretDto {
  @ApiProperty({ maxLength: VAULT_SECRET_NAME_MAX, description: 'Unique among your secrets' })
  @IsString()
  @MinLength(1)
  @MaxLength(VAULT_SECRET_NAME_MAX)
  name!: string;

  @ApiProperty({ enum: VAULT_SECRET_TYPES })
  @IsIn(VAULT_SECRET_TYPES)
  type!: string;

  @ApiPropertyOptional({
    maxLength: VAULT_SECRET_PROVIDER_MAX,
    description: 'Required for api-key: a provider id of GET /api/v1/models (owned_by)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(VAULT_SECRET_PROVIDER_MAX)
  provider?: string;

  @ApiProperty({ description: `Write-only; at most ${VAULT_SECRET_VALUE_MAX_BYTES} bytes`, writeOnly: true })
  @IsString()
  @MinLength(1)
  @MaxLength(VAULT_SECRET_VALUE_MAX_BYTES)
  value!: string;

  @ApiPropertyOptional({ maxLength: VAULT_SECRET_DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(VAULT_SECRET_DESCRIPTION_MAX)
  description?: string;
}

export class UpdateSecretDto {
  @ApiPropertyOptional({ maxLength: VAULT_SECRET_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(VAULT_SECRET_NAME_MAX)
  name?: string;

  @ApiPropertyOptional({ maxLength: VAULT_SECRET_PROVIDER_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(VAULT_SECRET_PROVIDER_MAX)
  provider?: string;

  @ApiPropertyOptional({ description: 'Replaces the value (write-only)', writeOnly: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(VAULT_SECRET_VALUE_MAX_BYTES)
  value?: string;

  @ApiPropertyOptional({ maxLength: VAULT_SECRET_DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(VAULT_SECRET_DESCRIPTION_MAX)
  description?: string;
}

export class SecretAccessQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this secret's reads" })
  @IsOptional()
  @IsUUID()
  secretId?: string;

  @OptionalInt({ min: 1, max: VAULT_ACCESS_LOG_MAX, default: 50, from: 'query' })
  limit?: number;
}

export class SecretAccessDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) secretId!: string;
  @ApiProperty() secretName!: string;
  @ApiProperty({ description: 'What the platform read the value for, e.g. model-call' }) purpose!: string;
  @ApiProperty({ description: 'e.g. the provider and model of the call' }) detail!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
}

export class SecretAccessListDto {
  @ApiProperty({ type: [SecretAccessDto] }) accesses!: SecretAccessDto[];
}
