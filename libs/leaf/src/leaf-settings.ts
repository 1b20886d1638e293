import { ConfigError, type AppConfig } from '@kw/platform-config';
import { APP_CONFIG, buildInfo } from '@kw/platform-runtime';

export const LEAF_SETTINGS = Symbol('LEAF_SETTINGS');
/** Milliseconds since the epoch (`Date.now` unless a test provides another clock). */
export const LEAF_CLOCK = Symbol('LEAF_CLOCK');

/** What the Leaf's pieces read of the configuration, checked once. */
export interface LeafSettings {
  /** The Cloud (CLOUD_URL), without a trailing slash. */
  cloudUrl: string;
  /** ENROLLMENT_TOKEN: needed only until the Leaf has enrolled. */
  enrollmentToken?: string;
  /** Where clients reach this Leaf (PUBLIC_URL), registered with the Cloud. */
  endpointUrl: string;
  leafVersion: string;
  heartbeatMs: number;
  /** The JWKS is fetched again this often even when every kid is known. */
  jwksRefreshMs: number;
  /** A token with an unknown kid makes the Leaf fetch the JWKS, at most once per this period. */
  jwksRefetchFloorMs: number;
  /** How long one call to the Cloud may take. */
  cloudTimeoutMs: number;
}

/**
 * Throws ConfigError (exit 2) when the Leaf cannot know its Cloud, or would register an
 * endpoint that is not https: the Cloud hands it to every client, who send their handoff
 * tokens there (HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS allows http for development).
 */
export function leafSettingsFrom(config: AppConfig): LeafSettings {
  const problems: string[] = [];
  if (!config.CLOUD_URL) {
    problems.push(
      'CLOUD_URL: required by the Leaf: the Cloud it enrolls with and whose handoff keys it trusts (e.g. CLOUD_URL=https://kw.example.com)',
    );
  }
  if (!config.HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS && new URL(config.publicUrl).protocol !== 'https:') {
    problems.push(
      `PUBLIC_URL: a Leaf must be reached over https, since clients send it their handoff tokens (got ${config.publicUrl}${
        config.PUBLIC_URL ? '' : ', the default'
      }). Set PUBLIC_URL=https://<the address clients use>, or HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS=true for development only`,
    );
  }
  if (problems.length > 0 || !config.CLOUD_URL) throw new ConfigError(problems);
  return {
    cloudUrl: config.CLOUD_URL.replace(/\/+$/, ''),
    enrollmentToken: config.ENROLLMENT_TOKEN,
    endpointUrl: config.publicUrl,
    leafVersion: buildInfo().version,
    heartbeatMs: config.LEAF_HEARTBEAT_SECONDS * 1000,
    jwksRefreshMs: 5 * 60_000,
    jwksRefetchFloorMs: 30_000,
    cloudTimeoutMs: 10_000,
  };
}

export const leafSettingsProvider = { provide: LEAF_SETTINGS, useFactory: leafSettingsFrom, inject: [APP_CONFIG] };
