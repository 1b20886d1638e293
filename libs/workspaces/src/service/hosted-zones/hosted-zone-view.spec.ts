import { describe, expect, it } from 'vitest';
import { zoneStatus } from './hosted-zone-view.js';

const now = new Date('2026-01-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('zoneStatus', () => {
  it('is pending until a Leaf enrolled', () => {
    expect(zoneStatus({ enrolledAt: null, lastHeartbeatAt: null }, now, 60_000)).toBe('pending');
  });

  it('is online while the last heartbeat is within the limit, offline after', () => {
    expect(zoneStatus({ enrolledAt: ago(600_000), lastHeartbeatAt: ago(60_000) }, now, 60_000)).toBe('online');
    expect(zoneStatus({ enrolledAt: ago(600_000), lastHeartbeatAt: ago(60_001) }, now, 60_000)).toBe('offline');
  });

  it('counts the enrollment as the first sign of life', () => {
    expect(zoneStatus({ enrolledAt: ago(1000), lastHeartbeatAt: null }, now, 60_000)).toBe('online');
    expect(zoneStatus({ enrolledAt: ago(120_000), lastHeartbeatAt: null }, now, 60_000)).toBe('offline');
  });
});
