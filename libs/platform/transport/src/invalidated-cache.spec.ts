import { describe, expect, it } from 'vitest';
import { InvalidatedCache } from './invalidated-cache.js';

describe('InvalidatedCache', () => {
  it('answers a stored entry until the TTL passes', () => {
    const cache = new InvalidatedCache<string>(1_000);
    cache.store('k', 'v', [], cache.begin(), Infinity, 10_000);
    expect(cache.get('k', 10_999)).toBe('v');
    expect(cache.get('k', 11_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never keeps an entry past its own deadline, and does not store one already past it', () => {
    const cache = new InvalidatedCache<string>(60_000);
    cache.store('a', 'v', [], cache.begin(), 10_500, 10_000);
    expect(cache.get('a', 10_499)).toBe('v');
    expect(cache.get('a', 10_500)).toBeUndefined();
    cache.store('b', 'v', [], cache.begin(), 9_000, 10_000);
    expect(cache.size).toBe(0);
  });

  it('drops every entry carrying an invalidated tag, and only those', () => {
    const cache = new InvalidatedCache<string>(60_000);
    cache.store('a', 'token 1 of u1', ['c:t1', 'u:u1'], cache.begin(), Infinity, 0);
    cache.store('b', 'token 2 of u1', ['c:t2', 'u:u1'], cache.begin(), Infinity, 0);
    cache.store('c', 'token 3 of u2', ['c:t3', 'u:u2'], cache.begin(), Infinity, 0);
    cache.invalidate(['c:t3']);
    expect(cache.get('c', 0)).toBeUndefined();
    cache.invalidate(['u:u1']);
    expect([cache.get('a', 0), cache.get('b', 0)]).toEqual([undefined, undefined]);
    cache.store('c', 'token 3 again', ['c:t3', 'u:u2'], cache.begin(), Infinity, 0);
    cache.invalidate(['u:nobody']);
    expect(cache.get('c', 0)).toBe('token 3 again');
  });

  it('does not store an answer fetched while an invalidation arrived (it may predate the change)', () => {
    const cache = new InvalidatedCache<string>(60_000);
    const startedAt = cache.begin();
    cache.invalidate(['anything']);
    cache.store('k', 'stale?', ['x'], startedAt, Infinity, 0);
    expect(cache.get('k', 0)).toBeUndefined();
    cache.store('k', 'fresh', ['x'], cache.begin(), Infinity, 0);
    expect(cache.get('k', 0)).toBe('fresh');
  });

  it('stores nothing with a TTL of 0, evicts the oldest entry when full, and forgets everything on clear', () => {
    const off = new InvalidatedCache<string>(0);
    off.store('k', 'v', [], off.begin(), Infinity, 0);
    expect(off.enabled).toBe(false);
    expect(off.size).toBe(0);

    const small = new InvalidatedCache<string>(60_000, 2);
    for (const k of ['k1', 'k2', 'k3']) small.store(k, k, ['t'], small.begin(), Infinity, 0);
    expect(small.size).toBe(2);
    expect(small.get('k1', 0)).toBeUndefined();
    expect(small.get('k3', 0)).toBe('k3');
    small.clear();
    expect(small.size).toBe(0);
  });
});
