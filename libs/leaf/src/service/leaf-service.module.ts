import { Module } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { loadSecretBox, SECRET_BOX } from '@kw/platform-secret-box';
import { LeafAccessHandlers } from './leaf-access.handlers.js';
import { CloudClient } from './cloud/cloud-client.js';
import { RevokedHandoffs } from './credentials/revoked-handoffs.js';
import { LeafEnrollment } from './enrollment/leaf-enrollment.js';
import { HeartbeatLoop } from '../events/heartbeat-loop.js';
import { CloudLink } from './health/cloud-link.js';
import { HandoffKeys } from './keys/handoff-keys.js';
import { leafDbProviders } from '../persistence/leaf-database.js';
import { LEAF_SETTINGS, leafSettingsProvider } from '../leaf-settings.js';
import { LeafStateRepository } from '../persistence/leaf-state.repository.js';

/**
 * The service side of the leaf component: enrollment with the Cloud, the heartbeat that
 * provisions placements and brings the revocations, the Cloud's keys, and the local answers
 * to WorkspacesService.
 */
@Module({
  providers: [
    leafSettingsProvider,
    ...leafDbProviders,
    {
      provide: SECRET_BOX,
      useFactory: (config: AppConfig, logger: Logger) => loadSecretBox(config, 'leaf', (msg) => logger.warn(msg)),
      inject: [APP_CONFIG, LOGGER],
    },
    LeafStateRepository,
    CloudClient,
    HandoffKeys,
    RevokedHandoffs,
    CloudLink,
    LeafEnrollment,
    HeartbeatLoop,
    LeafAccessHandlers,
  ],
  exports: [HandoffKeys, LeafStateRepository, RevokedHandoffs, CloudLink, LEAF_SETTINGS],
})
export class LeafServiceModule {}
