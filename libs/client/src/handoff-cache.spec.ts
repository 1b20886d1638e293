import { describe, expect, it } from 'vitest';
import { HandoffCache } from './handoff-cache.js';
import type { Handoff } from './types.js';

const handoff = (expiresIn: number, now: number): Handoff => ({
  token: 't',
  expiresAt: new Date(now + expiresIn * 1000).toISOString(),
  expiresIn,
  hostedZoneId: 'z',
  endpointUrl: 'https://leaf.example',
  workspaceId: 'w',
  actions: [],
});

describe('HandoffCache', () => {
  it('keeps a token until 30 s before it expires', () => {
    let now = 1_000_000;
    const cache = new HandoffCache(() => now);
    cache.set(handoff(300, now));
    now += 269_000;
    expect(cache.get('w')).toBeDefined();
    now += 2_000;
    expect(cache.get('w')).toBeUndefined();
  });

  it('uses a short-lived token for three quarters of its life', () => {
    let now = 0;
    const cache = new HandoffCache(() => now);
    cache.set(handoff(8, now));
    now = 5_900;
    expect(cache.get('w')).toBeDefined();
    now = 6_100;
    expect(cache.get('w')).toBeUndefined();
  });

  it('forgets on request', () => {
    const cache = new HandoffCache();
    cache.set(handoff(300, Date.now()));
    cache.forget('w');
    expect(cache.get('w')).toBeUndefined();
  });
});
