import { Module } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { eventBusProvider } from '@kw/platform-outbox';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { SECRET_BOX, loadSecretBox } from '@kw/platform-secret-box';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { DeliveryAttempter } from './delivery/attempt-delivery.js';
import { deliverySettingsProvider } from './delivery/delivery-settings.js';
import { DeliveryWorker } from '../events/delivery-worker.js';
import { EndpointHealth } from './delivery/endpoint-health.js';
import { TargetConnections } from './targets/index.js';
import { WebhookFanOut } from '../events/webhook-fan-out.js';
import { DeliveriesHandlers } from './deliveries.handlers.js';
import { WebhooksHandlers } from './webhooks.handlers.js';
import { WebhookRecords } from './webhook-records.js';
import { DeliveriesRepository } from '../persistence/deliveries.repository.js';
import { webhooksDbProviders } from '../persistence/webhooks-database.js';
import { WebhooksRepository } from '../persistence/webhooks.repository.js';
import { WorkspacePurgeHandlers } from './workspace-purge.handlers.js';
import { WebhookValuesRewrap } from './webhook-values-rewrap.js';

/** The service side of the webhooks component: kw.webhooks.v1 handlers, the fan-out consumer and the delivery worker. */
@Module({
  providers: [
    ...webhooksDbProviders,
    eventBusProvider('webhooks'),
    {
      provide: SECRET_BOX,
      useFactory: (config: AppConfig, logger: Logger) => loadSecretBox(config, 'webhooks', (msg) => logger.warn(msg)),
      inject: [APP_CONFIG, LOGGER],
    },
    deliverySettingsProvider,
    WorkspaceGate,
    WebhooksRepository,
    DeliveriesRepository,
    WebhookRecords,
    EndpointHealth,
    // Keep-alive connections to receivers, shared by every delivery of this process.
    { provide: TargetConnections, useFactory: () => new TargetConnections() },
    DeliveryAttempter,
    DeliveryWorker,
    WebhookFanOut,
    WebhooksHandlers,
    DeliveriesHandlers,
    WorkspacePurgeHandlers,
    WebhookValuesRewrap,
  ],
})
export class WebhooksServiceModule {}
