import type { CloudLinkReport } from '@kw/platform-runtime';
import type { LinkState } from './cloud-link.js';

/** Everything the Leaf's health derives from, read at one instant (milliseconds since the epoch). */
export interface LinkObservation {
  now: number;
  hostedZoneId?: string;
  link: LinkState;
  keyCount: number;
  keysFetchedAt?: number;
  revocationCount: number;
  revocationsUpdatedAt?: number;
  heartbeatMs: number;
  /** How long one call to the Cloud may take. */
  cloudTimeoutMs: number;
  /** The periodic JWKS refresh. */
  jwksRefreshMs: number;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/**
 * The Leaf's link to its Cloud, and what it means for serving (docs/hosted-zones-leaf.md):
 * - `down` when no token can be verified: not enrolled, or no Cloud key at all; or when the
 *   Cloud refused the zone credential (the zone was deleted or enrolled elsewhere), since the
 *   Leaf then serves nothing;
 * - `degraded` while the Cloud does not answer heartbeats,
 *   before the first answer, or when the keys were not refreshed for two refresh periods:
 *   tokens issued before the outage are still served until they expire;
 * - `ok` otherwise.
 * A heartbeat is overdue after two intervals plus the call's timeout (a hung call counts).
 */
export function cloudLinkHealth(o: LinkObservation): CloudLinkReport {
  const { lastSuccessAt, lastFailureAt, failure } = o.link;
  const failedLast = lastFailureAt !== undefined && (lastSuccessAt === undefined || lastFailureAt >= lastSuccessAt);
  const overdue = lastSuccessAt !== undefined && o.now - lastSuccessAt > 2 * o.heartbeatMs + o.cloudTimeoutMs;
  const link: CloudLinkReport['link'] = failedLast
    ? (failure ?? 'unreachable')
    : lastSuccessAt === undefined
      ? 'pending'
      : overdue
        ? 'unreachable'
        : 'up';
  const keysFresh = o.keysFetchedAt !== undefined && o.now - o.keysFetchedAt <= 2 * o.jwksRefreshMs;
  const enrolled = o.hostedZoneId !== undefined;

  let status: CloudLinkReport['status'];
  let detail: string;
  if (!enrolled || o.keyCount === 0) {
    status = 'down';
    detail = enrolled
      ? 'No Cloud key: every handoff token is refused until the JWKS can be fetched'
      : 'Not enrolled with a Cloud';
  } else if (link === 'refused') {
    status = 'down';
    detail =
      "The Cloud refused this Leaf's zone credential (the zone was deleted, or another Leaf enrolled for it): " +
      'it serves nothing; start it with a new ENROLLMENT_TOKEN';
  } else if (link === 'up' && keysFresh) {
    status = 'ok';
    detail = 'The Cloud answers heartbeats';
  } else {
    status = 'degraded';
    detail =
      link === 'up'
        ? 'The Cloud keys could not be refreshed: serving with the cached ones'
        : link === 'pending'
          ? 'No heartbeat answered yet'
          : 'The Cloud is unreachable: serving with the cached keys; new placements and revocations wait for it';
  }
  return {
    status,
    detail,
    enrolled,
    hostedZoneId: o.hostedZoneId ?? null,
    link,
    lastHeartbeatAt: iso(lastSuccessAt),
    lastFailureAt: iso(lastFailureAt),
    keys: { count: o.keyCount, fetchedAt: iso(o.keysFetchedAt), fresh: keysFresh },
    revocations: { count: o.revocationCount, updatedAt: iso(o.revocationsUpdatedAt) },
  };
}
