import type { Provider } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { SECRET_BOX, loadSecretBox } from '@kw/platform-secret-box';
import { HandoffKeysRepository } from '../../persistence/handoff-keys.repository.js';
import { HandoffRevocationsRepository } from '../../persistence/handoff-revocations.repository.js';
import { HostedZonesRepository } from '../../persistence/hosted-zones.repository.js';
import { HandoffHandlers } from './handoff.handlers.js';
import { HandoffIssuer } from './handoff-issuer.js';
import { HandoffKeys, handoffClockProvider, handoffKeyStoreProvider } from './handoff-keys.js';
import { HandoffKeysRewrap } from './handoff-keys-rewrap.js';
import { HandoffRevocationsHandlers } from './handoff-revocations.handlers.js';
import { hostedZoneSettingsProvider } from './hosted-zone-settings.js';
import { HostedZonesHandlers } from './hosted-zones.handlers.js';
import { LeafLinkHandlers } from './leaf-link.handlers.js';
import { ZoneAccess } from './zone-access.js';
import { ZonePlacement } from './zone-placement.js';

/** Hosted zones in the workspaces component (kw.workspaces.v1.HostedZonesService and placement). */
export const hostedZoneProviders: Provider[] = [
  // Seals the handoff signing keys (required in the distributed mode, like the webhooks component).
  {
    provide: SECRET_BOX,
    useFactory: (config: AppConfig, logger: Logger) => loadSecretBox(config, 'workspaces', (msg) => logger.warn(msg)),
    inject: [APP_CONFIG, LOGGER],
  },
  hostedZoneSettingsProvider,
  HostedZonesRepository,
  HandoffKeysRepository,
  HandoffRevocationsRepository,
  handoffKeyStoreProvider,
  handoffClockProvider,
  HandoffKeys,
  HandoffKeysRewrap,
  HandoffIssuer,
  ZoneAccess,
  ZonePlacement,
  HostedZonesHandlers,
  LeafLinkHandlers,
  HandoffHandlers,
  HandoffRevocationsHandlers,
];
