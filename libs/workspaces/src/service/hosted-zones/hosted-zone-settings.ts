import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';

/** The hosted-zone settings of the deployment (docs/configuration.md). */
export interface HostedZoneSettings {
  /** `iss` of handoff tokens: the Cloud's public URL. */
  issuer: string;
  handoffTtlSeconds: number;
  keyRotationMs: number;
  offlineAfterMs: number;
}

export const HOSTED_ZONE_SETTINGS = Symbol('HOSTED_ZONE_SETTINGS');

export function hostedZoneSettings(config: AppConfig): HostedZoneSettings {
  return {
    issuer: config.publicUrl,
    handoffTtlSeconds: config.HANDOFF_TOKEN_TTL_SECONDS,
    keyRotationMs: config.HANDOFF_KEY_ROTATION_DAYS * 24 * 60 * 60 * 1000,
    offlineAfterMs: config.HOSTED_ZONE_OFFLINE_AFTER_SECONDS * 1000,
  };
}

export const hostedZoneSettingsProvider = {
  provide: HOSTED_ZONE_SETTINGS,
  useFactory: hostedZoneSettings,
  inject: [APP_CONFIG],
};

/** The audience of handoff tokens for one zone: a Leaf accepts only its own. */
export const zoneAudience = (zoneId: string): string => `urn:kw:hosted-zone:${zoneId}`;

/** Where the Cloud publishes the keys that verify handoff tokens. */
export const jwksPath = '/.well-known/jwks.json';
