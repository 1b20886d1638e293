import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import type { TargetPolicy } from '../targets/index.js';
import { DELIVERY_TIMEOUT_MS } from '../../webhooks-limits.js';
import { readCaFile } from './ca-file.js';
import { parseRetrySchedule } from './retry-schedule.js';

export interface DeliverySettings {
  policy: TargetPolicy;
  /** Extra trusted CA certificates (PEM), next to the system's. */
  ca?: Buffer;
  /** Delays before each retry. */
  schedule: number[];
  timeoutMs: number;
  /** Failing for this long disables an endpoint. */
  disableAfterMs: number;
}

export const DELIVERY_SETTINGS = Symbol('DELIVERY_SETTINGS');

export function deliverySettings(config: AppConfig, logger: Logger): DeliverySettings {
  const allowPrivateTargets = config.WEBHOOKS_ALLOW_PRIVATE_TARGETS === true;
  if (allowPrivateTargets) {
    logger.warn(
      'webhooks: WEBHOOKS_ALLOW_PRIVATE_TARGETS is on: loopback and private targets are accepted (a test setting; never in production)',
    );
  }
  return {
    policy: { allowPrivateTargets },
    ca: config.WEBHOOKS_CA_FILE ? readCaFile(config.WEBHOOKS_CA_FILE) : undefined,
    schedule: parseRetrySchedule(config.WEBHOOKS_RETRY_SCHEDULE),
    timeoutMs: DELIVERY_TIMEOUT_MS,
    disableAfterMs: config.WEBHOOKS_DISABLE_AFTER_HOURS * 3_600_000,
  };
}

export const deliverySettingsProvider = {
  provide: DELIVERY_SETTINGS,
  useFactory: deliverySettings,
  inject: [APP_CONFIG, LOGGER],
};
