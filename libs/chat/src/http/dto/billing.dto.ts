import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';

/** The longest return URL accepted (Stripe's own limit is 5,000 characters). */
const URL_MAX = 2048;
const RETURN_URL = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

export class CheckoutDto {
  @ApiProperty({ example: 'pro', description: 'A plan whose table entry has `billing.priceId`' })
  @IsString()
  @MaxLength(63)
  planId!: string;

  @ApiPropertyOptional({
    format: 'uri',
    description:
      'Where the provider sends the person after paying (Stripe fills `{CHECKOUT_SESSION_ID}` in); default `BILLING_RETURN_URL?billing=success`',
  })
  @IsOptional()
  @IsUrl(RETURN_URL)
  @MaxLength(URL_MAX)
  successUrl?: string;

  @ApiPropertyOptional({
    format: 'uri',
    description: 'Where the provider sends the person who gives up; default `BILLING_RETURN_URL?billing=canceled`',
  })
  @IsOptional()
  @IsUrl(RETURN_URL)
  @MaxLength(URL_MAX)
  cancelUrl?: string;
}

export class CheckoutSessionDto {
  @ApiProperty({ format: 'uri', description: "The provider's checkout page: send the person there" })
  url!: string;
  @ApiProperty({ example: 'cs_test_a1b2c3' }) sessionId!: string;
}

export class PortalDto {
  @ApiPropertyOptional({ format: 'uri', description: 'Where the portal links back to; default `BILLING_RETURN_URL`' })
  @IsOptional()
  @IsUrl(RETURN_URL)
  @MaxLength(URL_MAX)
  returnUrl?: string;
}

export class PortalSessionDto {
  @ApiProperty({ format: 'uri', description: "The provider's customer portal for you" }) url!: string;
}

export class WebhookReceiptDto {
  @ApiProperty() received!: boolean;
  @ApiProperty({
    enum: ['applied', 'duplicate', 'stale', 'ignored'],
    description: 'applied; duplicate (an event id seen before); stale (older than the state); ignored',
  })
  outcome!: string;
}

export class SubscriptionBillingDto {
  @ApiProperty({ example: 'stripe' }) provider!: string;
  @ApiProperty({ example: 'active', description: "The provider's status: active, trialing, past_due, canceled..." })
  status!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'The end of the paid period' })
  currentPeriodEnd!: string | null;
  @ApiProperty({ description: 'The subscription ends at currentPeriodEnd' }) cancelAtPeriodEnd!: boolean;
}
