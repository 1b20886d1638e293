import { Injectable } from '@nestjs/common';
import { BillingService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { BillingCheckout } from './billing/billing-checkout.js';
import { BillingWebhooks } from './billing/billing-webhooks.js';

/** BillingService over the transport: each method hands over to its use case. */
@Injectable()
export class BillingHandlers {
  constructor(
    private readonly checkout: BillingCheckout,
    private readonly webhooks: BillingWebhooks,
  ) {}

  @Handles(BillingService.method.createCheckout)
  createCheckout(input: RequestOf<typeof BillingService, 'createCheckout'>, context: RequestContext) {
    return this.checkout.checkout(input, context);
  }

  @Handles(BillingService.method.createPortal)
  createPortal(input: RequestOf<typeof BillingService, 'createPortal'>, context: RequestContext) {
    return this.checkout.portal(input, context);
  }

  /** Public: the signature over the payload is checked before anything else reads it. */
  @Handles(BillingService.method.receiveWebhook)
  async receiveWebhook(input: RequestOf<typeof BillingService, 'receiveWebhook'>) {
    return { outcome: await this.webhooks.receive(input) };
  }
}
