import { describe, expect, it } from 'vitest';
import { FailedAuthThrottle } from './failed-auth-throttle.js';
import { MemoryRateLimitStore } from './memory-rate-limit-store.js';
import { RateLimiter } from './rate-limiter.js';

function throttle(perAddress = 3, perCredential = 2) {
  let now = 1_000_000;
  const clock = () => now;
  const store = new MemoryRateLimitStore();
  const t = new FailedAuthThrottle(
    new RateLimiter(store, { name: 'fa', limit: perAddress, windowSeconds: 60 }, clock),
    new RateLimiter(store, { name: 'fc', limit: perCredential, windowSeconds: 60 }, clock),
    clock,
  );
  return { t, advance: (ms: number) => (now += ms) };
}

describe('FailedAuthThrottle', () => {
  it('blocks an address after its limit of failures, for the rest of the window', async () => {
    const { t, advance } = throttle();
    for (let i = 0; i < 3; i++) expect(await t.failed('10.0.0.1', `guess-${i}`)).toBeUndefined();
    expect(t.blocked('10.0.0.1', 'a-valid-token')).toBeUndefined();
    const refusal = await t.failed('10.0.0.1', 'guess-3');
    expect(refusal).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    advance(20_000);
    expect(t.blocked('10.0.0.1', 'a-valid-token')).toMatchObject({ allowed: false, retryAfterSeconds: 40 });
    expect(t.blocked('10.0.0.2', 'a-valid-token')).toBeUndefined();
    advance(40_001);
    expect(t.blocked('10.0.0.1', 'a-valid-token')).toBeUndefined();
  });

  it('blocks one credential replayed from many addresses', async () => {
    const { t } = throttle(100, 2);
    expect(await t.failed('10.0.0.1', 'revoked')).toBeUndefined();
    expect(await t.failed('10.0.0.2', 'revoked')).toBeUndefined();
    expect(await t.failed('10.0.0.3', 'revoked')).toMatchObject({ allowed: false });
    expect(t.blocked('10.0.0.9', 'revoked')).toMatchObject({ allowed: false });
    expect(t.blocked('10.0.0.9', 'another')).toBeUndefined();
  });

  it('doubles the block at each repeat (backoff), and forgets strikes after a long quiet', async () => {
    const { t, advance } = throttle(1, 100);
    const failTwice = async () => {
      await t.failed('10.0.0.1', 'x');
      return t.failed('10.0.0.1', 'y');
    };
    expect((await failTwice())?.retryAfterSeconds).toBe(60);
    advance(60_000);
    expect((await failTwice())?.retryAfterSeconds).toBe(120);
    advance(120_000);
    expect((await failTwice())?.retryAfterSeconds).toBe(240);
    advance(240_000 + 16 * 60_000 + 1);
    expect((await failTwice())?.retryAfterSeconds).toBe(60);
  });
});
