import { Module } from '@nestjs/common';
import { accountLimitsFactory, AccountLimits } from '@kw/platform-entitlements';
import { ServiceClient } from '@kw/platform-transport';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { defineComponent } from './component.js';
import type { PlatformDatabase } from './database.js';
import { DiagnosticsController } from './diagnostics/diagnostics.controller.js';
import { EDGE_ADMISSION } from '@kw/platform-http';
import { RateLimitAdmission } from './rate-limits/rate-limit.admission.js';
import { RateLimitPruner } from './rate-limits/rate-limit-pruner.js';
import { createRateLimiters, RATE_LIMITERS } from './rate-limits/rate-limiters.js';
import { HealthAggregator } from './service-info/health-aggregator.js';
import { ServiceInfoController } from './service-info/service-info.controller.js';
import { APP_CONFIG, DATABASE, LOGGER } from './tokens.js';

export const GATEWAY = 'gateway';

/** The HTTP edge's own routes and cross-cutting request policies (rate limits). */
@Module({
  controllers: [ServiceInfoController, DiagnosticsController],
  providers: [
    HealthAggregator,
    {
      provide: RATE_LIMITERS,
      useFactory: (config: AppConfig, database: PlatformDatabase | null, logger: Logger) =>
        createRateLimiters(config, database ?? undefined, logger),
      inject: [APP_CONFIG, DATABASE, LOGGER],
    },
    RateLimitPruner,
    { provide: AccountLimits, useFactory: accountLimitsFactory, inject: [ServiceClient, APP_CONFIG] },
    // Run by the AuthGuard after authentication (see EdgeAdmission).
    { provide: EDGE_ADMISSION, useClass: RateLimitAdmission },
  ],
})
export class GatewayModule {}

/**
 * The Cloud's edge. It needs the control plane's tables: rate-limit counters shared by every
 * gateway replica in distributed mode.
 */
export const gatewayComponent = defineComponent({ name: GATEWAY, planes: ['control'], module: GatewayModule });

/** A Leaf's edge: the same routes on a data plane only (its counters stay in memory). */
export const leafGatewayComponent = defineComponent({ name: GATEWAY, planes: [], module: GatewayModule });
