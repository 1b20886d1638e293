import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';

/** The hosted-zone settings of the deployment (docs/configuration.md). */
export interface HostedZoneSettings {
  /** `iss` of handoff tokens: the Cloud's public URL. */
  issuer: string;
  handoffTtlSeconds: number;
  keyRotationMs: number;
  offlineAfterMs: number;
  /** HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS (development): placement on a zone whose endpoint is not https. */
  allowHttpEndpoints: boolean;
  /**
   * How long a revocation is sent to the Leaves at least: the token lifetime, plus a minute for
   * the Leaves' clock tolerance and heartbeat delays. Older entries are sent while a token they
   * match, issued under a longer lifetime, has not expired (HandoffRevocationsRepository.forZone).
   */
  revocationWindowMs: number;
}

export const HOSTED_ZONE_SETTINGS = Symbol('HOSTED_ZONE_SETTINGS');

/** A token still counts this long after its `exp`: the Leaves' clock tolerance and heartbeat delays. */
export const REVOCATION_MARGIN_MS = 60_000;

export function hostedZoneSettings(config: AppConfig): HostedZoneSettings {
  return {
    issuer: config.publicUrl,
    handoffTtlSeconds: config.HANDOFF_TOKEN_TTL_SECONDS,
    keyRotationMs: config.HANDOFF_KEY_ROTATION_DAYS * 24 * 60 * 60 * 1000,
    offlineAfterMs: config.HOSTED_ZONE_OFFLINE_AFTER_SECONDS * 1000,
    allowHttpEndpoints: config.HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS === true,
    revocationWindowMs: config.HANDOFF_TOKEN_TTL_SECONDS * 1000 + REVOCATION_MARGIN_MS,
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
