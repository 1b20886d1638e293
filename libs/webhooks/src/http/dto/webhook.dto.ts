import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateBy,
} from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import { WEBHOOK_NAME_MAX, WEBHOOK_URL_MAX } from '@kw/contracts';
import {
  DELIVERIES_LIMIT_MAX,
  SECRET_OVERLAP_MAX_SECONDS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS_MAX,
} from '../../webhooks-limits.js';

/** `{name: value}` with string values and at most WEBHOOK_HEADERS_MAX entries (names and values are checked by the service). */
const IsHeaderMap = () =>
  ValidateBy({
    name: 'isHeaderMap',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).length <= WEBHOOK_HEADERS_MAX &&
        Object.values(value).every((v) => typeof v === 'string'),
      defaultMessage: () => `headers must be an object of at most ${WEBHOOK_HEADERS_MAX} string values`,
    },
  });

const EVENTS_DOC = {
  enum: WEBHOOK_EVENT_TYPES,
  isArray: true,
  description: 'Released kinds only; anything else is 400',
} as const;
const HEADERS_DOC = {
  type: 'object',
  additionalProperties: { type: 'string' },
  example: { Authorization: 'Bearer receiver-token' },
} as const;

export class CreateWebhookDto {
  @ApiProperty({ maxLength: WEBHOOK_NAME_MAX }) @IsString() @MinLength(1) @MaxLength(WEBHOOK_NAME_MAX) name!: string;
  @ApiProperty({
    maxLength: WEBHOOK_URL_MAX,
    example: 'https://hooks.example.com/kw',
    description: 'HTTPS, publicly reachable, no credentials (docs/webhooks.md: target rules)',
  })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX)
  url!: string;
  @ApiProperty(EVENTS_DOC)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length * 2)
  @IsString({ each: true })
  events!: string[];
  @ApiPropertyOptional({
    ...HEADERS_DOC,
    description: 'Sent with every delivery (e.g. a receiver token). Stored encrypted, answered masked.',
  })
  @IsOptional()
  @IsObject()
  @IsHeaderMap()
  headers?: Record<string, string>;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() enabled?: boolean;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: WEBHOOK_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(WEBHOOK_NAME_MAX)
  name?: string;
  @ApiPropertyOptional({ maxLength: WEBHOOK_URL_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX)
  url?: string;
  @ApiPropertyOptional(EVENTS_DOC)
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length * 2)
  @IsString({ each: true })
  events?: string[];
  @ApiPropertyOptional({
    ...HEADERS_DOC,
    nullable: true,
    description: 'Replaces every header; `null` or `{}` removes them',
  })
  @IsOptional()
  @IsObject()
  @IsHeaderMap()
  headers?: Record<string, string> | null;
  @ApiPropertyOptional({ description: 'Re-enabling an endpoint the platform disabled clears `disabledReason`' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class RotateWebhookSecretDto {
  @OptionalInt({
    min: 1,
    max: SECRET_OVERLAP_MAX_SECONDS,
    default: 86_400,
    description: 'How long the previous secret keeps signing',
    from: 'body',
  })
  overlapSeconds?: number;
}

export class TriggerWebhooksDto {
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) @IsString() eventType!: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'One endpoint (even a disabled one); omitted: every enabled endpoint that selected the kind',
  })
  @IsOptional()
  @IsUUID()
  webhookId?: string;
}

export class DeliveriesQueryDto {
  @ApiPropertyOptional({ enum: ['pending', 'delivering', 'succeeded', 'failed', 'cancelled'] })
  @IsOptional()
  @IsIn(['pending', 'delivering', 'succeeded', 'failed', 'cancelled'])
  status?: string;
  @OptionalInt({ min: 1, max: DELIVERIES_LIMIT_MAX, default: 50, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: 1_000_000, default: 0, from: 'query' })
  offset?: number;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events!: string[];
  @ApiProperty({
    ...HEADERS_DOC,
    example: { Authorization: '********' },
    description: 'Header names; values always masked',
  })
  headers!: Record<string, string>;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({
    nullable: true,
    enum: ['gone', 'failing'],
    description: '`gone`: the receiver answered 410; `failing`: every delivery failed for WEBHOOKS_DISABLE_AFTER_HOURS',
  })
  disabledReason!: string | null;
  @ApiProperty({ nullable: true, format: 'date-time' }) disabledAt!: string | null;
  @ApiProperty({ nullable: true, format: 'date-time' }) lastSuccessAt!: string | null;
  @ApiProperty({ nullable: true, format: 'date-time' }) failingSince!: string | null;
  @ApiProperty({ nullable: true, format: 'date-time', description: 'Until then the previous secret also signs' })
  secretOverlapUntil!: string | null;
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class WebhookResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: WebhookDto }) webhook!: WebhookDto;
}

export class WebhookCreatedDto extends WebhookResponseDto {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'The signing secret, shown only now' })
  secret!: string;
}

export class SecretRotatedDto extends WebhookCreatedDto {
  @ApiProperty({ format: 'date-time' }) previousSecretExpiresAt!: string;
}

export class WebhookListDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [WebhookDto] }) items!: WebhookDto[];
  @ApiProperty() count!: number;
}

export class DeliveryAttemptDto {
  @ApiProperty() number!: number;
  @ApiProperty({ format: 'date-time' }) startedAt!: string;
  @ApiProperty() durationMs!: number;
  @ApiProperty({ nullable: true, description: 'HTTP status, null when no response came' }) statusCode!: number | null;
  @ApiProperty({ nullable: true, enum: ['timeout', 'connect', 'tls', 'redirect', 'status', 'refused', 'secret'] })
  failure!: string | null;
  @ApiProperty({ nullable: true }) message!: string | null;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) webhookId!: string;
  @ApiProperty({ description: 'The `webhook-id` header, the same on every attempt' }) messageId!: string;
  @ApiProperty() eventType!: string;
  @ApiProperty({ nullable: true, format: 'uuid' }) eventId!: string | null;
  @ApiProperty({ enum: ['pending', 'delivering', 'succeeded', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ nullable: true, format: 'date-time' }) nextAttemptAt!: string | null;
  @ApiProperty({ nullable: true }) lastStatusCode!: number | null;
  @ApiProperty({ nullable: true }) lastFailure!: string | null;
  @ApiProperty({ description: 'Sent by the test trigger' }) test!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ nullable: true, format: 'date-time' }) completedAt!: string | null;
  @ApiProperty({ type: [DeliveryAttemptDto] }) attemptHistory!: DeliveryAttemptDto[];
}

export class DeliveryListDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [DeliveryDto] }) items!: DeliveryDto[];
  @ApiProperty() count!: number;
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class DeliveryResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: DeliveryDto }) delivery!: DeliveryDto;
}

export class DeliveryOutcomeDto {
  @ApiProperty({ format: 'uuid' }) webhookId!: string;
  @ApiProperty({ format: 'uuid' }) deliveryId!: string;
  @ApiProperty() messageId!: string;
  @ApiProperty() ok!: boolean;
  @ApiProperty({ nullable: true }) statusCode!: number | null;
  @ApiProperty() durationMs!: number;
  @ApiProperty({ nullable: true, enum: ['timeout', 'connect', 'tls', 'redirect', 'status', 'refused', 'secret'] })
  failure!: string | null;
  @ApiProperty({ nullable: true }) message!: string | null;
}

export class TriggerResultDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) eventType!: string;
  @ApiProperty({ type: [DeliveryOutcomeDto] }) outcomes!: DeliveryOutcomeDto[];
}

export class WebhookDeletedDto {
  @ApiProperty() success!: boolean;
}
