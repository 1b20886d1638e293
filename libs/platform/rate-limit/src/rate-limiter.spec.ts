import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { MemoryRateLimitStore } from './memory-rate-limit-store.js';
import { rateLimitTableSql } from './postgres-rate-limit-store.js';
import { rateLimitedError, rateLimitHeaders } from './rate-limit-response.js';
import { mostRestrictive, RateLimiter, type RateLimitResult } from './rate-limiter.js';

const result = (over: Partial<RateLimitResult>): RateLimitResult => ({
  allowed: true,
  limit: 10,
  remaining: 5,
  resetSeconds: 30,
  retryAfterSeconds: 0,
  ...over,
});

describe('RateLimiter', () => {
  it('refuses policies that cannot work', () => {
    const store = new MemoryRateLimitStore();
    expect(() => new RateLimiter(store, { name: 'a:b', limit: 1, windowSeconds: 1 })).toThrow(/name/);
    expect(() => new RateLimiter(store, { name: '', limit: 1, windowSeconds: 1 })).toThrow(/name/);
    expect(() => new RateLimiter(store, { name: 'x', limit: 0, windowSeconds: 1 })).toThrow(/limit/);
    expect(() => new RateLimiter(store, { name: 'x', limit: 1.5, windowSeconds: 1 })).toThrow(/limit/);
    expect(() => new RateLimiter(store, { name: 'x', limit: 1, windowSeconds: 0 })).toThrow(/windowSeconds/);
  });

  it('rounds a partial second up, so a client waiting resetSeconds never arrives early', async () => {
    let now = 1_000_000;
    const rl = new RateLimiter(new MemoryRateLimitStore(), { name: 'x', limit: 1, windowSeconds: 2 }, () => now);
    await rl.hit('k');
    now += 1;
    expect(await rl.hit('k')).toMatchObject({ allowed: false, resetSeconds: 2, retryAfterSeconds: 2 });
    now += 998;
    expect(await rl.hit('k')).toMatchObject({ resetSeconds: 2 });
    now += 1;
    expect(await rl.hit('k')).toMatchObject({ resetSeconds: 1 });
  });

  it('uses the wall clock by default', async () => {
    const rl = new RateLimiter(new MemoryRateLimitStore(), { name: 'x', limit: 1, windowSeconds: 60 });
    expect(await rl.hit('k')).toEqual({
      allowed: true,
      limit: 1,
      remaining: 0,
      resetSeconds: 60,
      retryAfterSeconds: 0,
    });
  });
});

describe('mostRestrictive', () => {
  it('prefers a refusal, the longest wait among refusals', () => {
    const refusedSoon = result({ allowed: false, remaining: 0, retryAfterSeconds: 3 });
    const refusedLate = result({ allowed: false, remaining: 0, retryAfterSeconds: 50 });
    expect(mostRestrictive([result({}), refusedSoon])).toBe(refusedSoon);
    expect(mostRestrictive([refusedSoon, result({}), refusedLate])).toBe(refusedLate);
  });

  it('otherwise reports the limit closest to refusing', () => {
    const near = result({ remaining: 1, limit: 100 });
    expect(mostRestrictive([result({ remaining: 5 }), near])).toBe(near);
    const longer = result({ remaining: 1, resetSeconds: 3000 });
    expect(mostRestrictive([near, longer])).toBe(longer);
  });

  it('needs at least one result', () => {
    expect(() => mostRestrictive([])).toThrow();
  });
});

describe('rateLimitHeaders', () => {
  it('reports limit, remaining and reset on every answer', () => {
    expect(rateLimitHeaders(result({}))).toEqual({
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '5',
      'RateLimit-Reset': '30',
    });
  });

  it('adds Retry-After on a refusal', () => {
    expect(rateLimitHeaders(result({ allowed: false, remaining: 0, resetSeconds: 7, retryAfterSeconds: 7 }))).toEqual({
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '7',
      'Retry-After': '7',
    });
  });
});

describe('rateLimitedError', () => {
  it('is a 429 RATE_LIMITED carrying retryAfterSeconds', () => {
    const error = rateLimitedError(result({ allowed: false, remaining: 0, retryAfterSeconds: 12 }));
    expect(error).toBeInstanceOf(AppError);
    expect(error.toJSON()).toEqual({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'Rate limit exceeded; retry in 12 seconds',
      details: { retryAfterSeconds: 12 },
      param: undefined,
    });
    expect(rateLimitedError(result({ allowed: false, retryAfterSeconds: 1 })).message).toBe(
      'Rate limit exceeded; retry in 1 second',
    );
  });
});

describe('README', () => {
  it('shows the table the Postgres store uses', () => {
    expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8')).toContain(rateLimitTableSql());
  });
});
