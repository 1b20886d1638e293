import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { BillingService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { Public, rawJsonBody } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import { CheckoutDto, CheckoutSessionDto, PortalDto, PortalSessionDto, WebhookReceiptDto } from './dto/billing.dto.js';

const NOT_CONFIGURED = '`BILLING_NOT_CONFIGURED`: this deployment has no billing provider';

/** Subscription checkout, the customer portal and the provider's webhook (docs/billing.md). */
@ApiTags('Billing')
@Controller('api')
export class BillingController {
  constructor(private readonly client: ServiceClient) {}

  @Post('subscription/checkout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start buying a plan',
    description:
      'Scope `profile:write`. Answers the billing provider’s checkout page for a plan with a price; the plan ' +
      'becomes yours when the provider reports the subscription paid (its webhook).',
  })
  @ApiOkResponse({ type: CheckoutSessionDto })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED` (`planId`): no such plan, or a plan without a price' })
  @ApiConflictResponse({
    description: `${NOT_CONFIGURED}; \`SUBSCRIPTION_EXISTS\`: you pay for a plan already (use the portal)`,
  })
  async checkout(@Body() body: CheckoutDto): Promise<CheckoutSessionDto> {
    const session = await this.client.call(BillingService.method.createCheckout, {
      planId: body.planId,
      successUrl: body.successUrl ?? '',
      cancelUrl: body.cancelUrl ?? '',
    });
    return { url: session.url, sessionId: session.sessionId };
  }

  @Post('subscription/portal')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Open the customer portal',
    description: 'Scope `profile:write`. Invoices, payment method, plan changes and cancellation, at the provider.',
  })
  @ApiOkResponse({ type: PortalSessionDto })
  @ApiConflictResponse({ description: `${NOT_CONFIGURED}; \`NO_BILLING_CUSTOMER\`: start a checkout first` })
  async portal(@Body() body: PortalDto): Promise<PortalSessionDto> {
    const { url } = await this.client.call(BillingService.method.createPortal, { returnUrl: body.returnUrl ?? '' });
    return { url };
  }

  @Post('billing/stripe/webhook')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Receive a Stripe webhook event',
    description:
      'No credential: the `Stripe-Signature` header (HMAC-SHA256 of the exact body with the endpoint’s signing ' +
      'secret, at most 300 s old) is verified first. Each event id is applied once; see docs/billing.md.',
  })
  @ApiHeader({ name: 'Stripe-Signature', required: true, description: '`t=<unix time>,v1=<hex signature>`' })
  @ApiBody({ schema: { type: 'object', description: 'A Stripe event, exactly as Stripe sent it' } })
  @ApiOkResponse({ type: WebhookReceiptDto })
  @ApiBadRequestResponse({ description: '`BILLING_SIGNATURE_INVALID`: missing, wrong or expired signature' })
  @ApiConflictResponse({ description: NOT_CONFIGURED })
  async stripeWebhook(@Req() request: FastifyRequest): Promise<WebhookReceiptDto> {
    // The signature covers the bytes: the parsed body is never used, the text kept by the edge is.
    const payload = rawJsonBody(request);
    if (payload === undefined) throw badRequest('The body must be a Stripe event (Content-Type: application/json)');
    const header = request.headers['stripe-signature'];
    const { outcome } = await this.client.call(BillingService.method.receiveWebhook, {
      provider: 'stripe',
      payload,
      signature: Array.isArray(header) ? header.join(',') : (header ?? ''),
    });
    return { received: true, outcome };
  }
}
