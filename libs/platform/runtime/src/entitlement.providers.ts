import type { Provider } from '@nestjs/common';
import { accountLimitsFactory, AccountLimits, LimitNotices } from '@kw/platform-entitlements';
import type { Logger } from '@kw/platform-observability';
import { ServiceClient } from '@kw/platform-transport';
import { APP_CONFIG, LOGGER } from './tokens.js';

/** For a component that enforces plan limits (docs/plans.md): the cached limits and the 80 %/100 % notices. */
export const entitlementProviders: Provider[] = [
  { provide: AccountLimits, useFactory: accountLimitsFactory, inject: [ServiceClient, APP_CONFIG] },
  {
    provide: LimitNotices,
    useFactory: (client: ServiceClient, logger: Logger) =>
      new LimitNotices(client, (err) => logger.warn({ err }, 'could not tell the owners about a plan limit')),
    inject: [ServiceClient, LOGGER],
  },
];
