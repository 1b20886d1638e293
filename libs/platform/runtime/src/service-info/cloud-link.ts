/**
 * A Leaf's link to its Cloud, added to the Leaf's /api/health (docs/hosted-zones-leaf.md,
 * "Health"). The Leaf provides it under CLOUD_LINK_HEALTH; the Cloud's gateway has none.
 */
export interface CloudLinkReport {
  /**
   * `ok`: heartbeats answered and keys fresh; `degraded`: serving, but the Cloud is not
   * answering (or refused the Leaf) or its keys are stale; `down`: no token can be verified.
   */
  status: 'ok' | 'degraded' | 'down';
  detail: string;
  enrolled: boolean;
  hostedZoneId: string | null;
  /** `up`, `unreachable` (the last heartbeat failed or is overdue), `refused` (the Cloud refused the zone credential) or `pending` (no heartbeat answered yet). */
  link: 'up' | 'unreachable' | 'refused' | 'pending';
  /** The last heartbeat the Cloud answered. */
  lastHeartbeatAt: string | null;
  /** The last heartbeat that failed. */
  lastFailureAt: string | null;
  keys: { count: number; fetchedAt: string | null; fresh: boolean };
  revocations: { count: number; updatedAt: string | null };
}

export interface CloudLinkHealth {
  report(): CloudLinkReport;
}
