import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import type { BillingProvider } from './billing-provider.js';

/**
 * The configured billing provider, or null: billing is off unless BILLING_PROVIDER names one.
 * The Stripe SDK is loaded only then (it is large, and most deployments bill nobody).
 */
export async function createBillingProvider(config: AppConfig, logger: Logger): Promise<BillingProvider | null> {
  if (config.BILLING_PROVIDER !== 'stripe') return null;
  const { StripeBillingProvider } = await import('./stripe-billing-provider.js');
  // loadConfig refuses BILLING_PROVIDER=stripe without both secrets.
  return new StripeBillingProvider(
    {
      secretKey: config.STRIPE_SECRET_KEY!,
      webhookSecret: config.STRIPE_WEBHOOK_SECRET!,
      apiUrl: config.STRIPE_API_URL,
    },
    logger,
  );
}
