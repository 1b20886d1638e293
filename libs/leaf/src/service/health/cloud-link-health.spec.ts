import { describe, expect, it } from 'vitest';
import { cloudLinkHealth, type LinkObservation } from './cloud-link-health.js';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const HEARTBEAT = 5_000;

const observe = (overrides: Partial<LinkObservation> = {}): LinkObservation => ({
  now: NOW,
  hostedZoneId: '6f1c7f61-4bde-4bd9-9d7c-0cb0c3f8f5a4',
  link: { lastSuccessAt: NOW - 2_000 },
  keyCount: 1,
  keysFetchedAt: NOW - 60_000,
  revocationCount: 2,
  revocationsUpdatedAt: NOW - 2_000,
  heartbeatMs: HEARTBEAT,
  cloudTimeoutMs: 10_000,
  jwksRefreshMs: 300_000,
  ...overrides,
});

describe('cloudLinkHealth', () => {
  it('is ok while heartbeats are answered and the keys are fresh, with the times and counts', () => {
    expect(cloudLinkHealth(observe())).toEqual({
      status: 'ok',
      detail: 'The Cloud answers heartbeats',
      enrolled: true,
      hostedZoneId: '6f1c7f61-4bde-4bd9-9d7c-0cb0c3f8f5a4',
      link: 'up',
      lastHeartbeatAt: '2026-11-26T09:59:58.000Z',
      lastFailureAt: null,
      keys: { count: 1, fetchedAt: '2026-11-26T09:59:00.000Z', fresh: true },
      revocations: { count: 2, updatedAt: '2026-11-26T09:59:58.000Z' },
    });
  });

  it('is degraded (still serving) when the last heartbeat failed, and ok again once one is answered', () => {
    const down = cloudLinkHealth(
      observe({ link: { lastSuccessAt: NOW - 8_000, lastFailureAt: NOW - 1_000, failure: 'unreachable' } }),
    );
    expect(down).toMatchObject({ status: 'degraded', link: 'unreachable' });
    expect(down.detail).toMatch(/unreachable/);
    const back = cloudLinkHealth(
      observe({ link: { lastSuccessAt: NOW - 500, lastFailureAt: NOW - 6_000, failure: 'unreachable' } }),
    );
    expect(back).toMatchObject({ status: 'ok', link: 'up' });
  });

  it('counts a heartbeat overdue past two intervals and the call timeout as unreachable', () => {
    const overdue = NOW - (2 * HEARTBEAT + 10_000) - 1;
    expect(cloudLinkHealth(observe({ link: { lastSuccessAt: overdue } }))).toMatchObject({
      status: 'degraded',
      link: 'unreachable',
    });
    expect(cloudLinkHealth(observe({ link: { lastSuccessAt: overdue + 2 } })).link).toBe('up');
  });

  it('is degraded before the first answer, or with stale keys; down when the Cloud refused the zone credential (it serves nothing)', () => {
    const refused = cloudLinkHealth(observe({ link: { lastFailureAt: NOW, failure: 'refused' } }));
    expect(refused).toMatchObject({ status: 'down', link: 'refused' });
    expect(refused.detail).toMatch(/ENROLLMENT_TOKEN/);
    expect(cloudLinkHealth(observe({ link: {} }))).toMatchObject({ status: 'degraded', link: 'pending' });
    const stale = cloudLinkHealth(observe({ keysFetchedAt: NOW - 600_001 }));
    expect(stale).toMatchObject({ status: 'degraded', link: 'up', keys: { fresh: false } });
  });

  it('is down when no token can be verified: no key, or not enrolled, whatever the link', () => {
    const noKey = cloudLinkHealth(observe({ keyCount: 0, keysFetchedAt: undefined }));
    expect(noKey).toMatchObject({ status: 'down', keys: { count: 0, fetchedAt: null, fresh: false } });
    expect(noKey.detail).toMatch(/No Cloud key/);
    expect(cloudLinkHealth(observe({ hostedZoneId: undefined }))).toMatchObject({ status: 'down', enrolled: false });
  });
});
