import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { BatchedRateLimitStore } from './batched-rate-limit-store.js';
import { MemoryRateLimitStore } from './memory-rate-limit-store.js';
import { PostgresRateLimitStore, rateLimitTableSql } from './postgres-rate-limit-store.js';
import type { RateLimitStore } from './rate-limit-store.js';
import { RateLimiter, type RateLimitResult } from './rate-limiter.js';

/**
 * The same cases against every RateLimitStore adapter: embedded and distributed mode must
 * limit identically. Time is an injected clock, never a sleep.
 */

const T0 = 1_700_000_000_000;

function storeConformance(newStore: () => RateLimitStore): void {
  let now = T0;
  const clock = () => now;
  let seq = 0;
  // Each test uses its own keys, so tests on a shared Postgres table never meet.
  const freshKey = () => `key-${++seq}-${Math.random().toString(36).slice(2)}`;
  const limiter = (store: RateLimitStore, limit = 3, windowSeconds = 60, name = 'test') =>
    new RateLimiter(store, { name, limit, windowSeconds }, clock);

  it('allows exactly N hits, refuses hit N+1, and counts remaining down by one', async () => {
    now = T0;
    const rl = limiter(newStore(), 5);
    const key = freshKey();
    const results: RateLimitResult[] = [];
    for (let i = 0; i < 7; i++) results.push(await rl.hit(key));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    for (const r of results) expect(r.limit).toBe(5);
    expect(results[4]).toMatchObject({ retryAfterSeconds: 0, resetSeconds: 60 });
    expect(results[5]).toMatchObject({ allowed: false, retryAfterSeconds: 60, resetSeconds: 60 });
  });

  it('counts reset down with time and allows again once the window has ended', async () => {
    now = T0;
    const rl = limiter(newStore(), 2, 10);
    const key = freshKey();
    await rl.hit(key);
    now = T0 + 4_500;
    expect(await rl.hit(key)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 6 });
    now = T0 + 9_999;
    expect(await rl.hit(key)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 });
    now = T0 + 10_000;
    expect(await rl.hit(key)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 10, retryAfterSeconds: 0 });
    expect(await rl.hit(key)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await rl.hit(key)).toMatchObject({ allowed: false });
  });

  it('anchors the window at the first hit, and refused hits do not extend it', async () => {
    now = T0 + 123;
    const rl = limiter(newStore(), 1, 30);
    const key = freshKey();
    expect((await rl.hit(key)).allowed).toBe(true);
    for (let i = 0; i < 5; i++) {
      now += 5_000;
      expect((await rl.hit(key)).allowed).toBe(false);
    }
    now = T0 + 123 + 30_000;
    expect((await rl.hit(key)).allowed).toBe(true);
  });

  it('keeps keys and limit names apart', async () => {
    now = T0;
    const store = newStore();
    const perToken = limiter(store, 1, 60, 'token');
    const perWorkspace = limiter(store, 1, 60, 'workspace');
    const [a, b] = [freshKey(), freshKey()];
    expect((await perToken.hit(a)).allowed).toBe(true);
    expect((await perToken.hit(a)).allowed).toBe(false);
    expect((await perToken.hit(b)).allowed).toBe(true);
    expect((await perWorkspace.hit(a)).allowed).toBe(true);
  });

  it('prunes ended windows only', async () => {
    now = T0;
    const store = newStore();
    const short = limiter(store, 1, 1, 'short');
    const long = limiter(store, 1, 3600, 'long');
    const key = freshKey();
    await short.hit(key);
    await long.hit(key);
    // Other tests' rows may be pruned too on a shared table: count at least ours.
    expect(await store.prune(T0 + 1_000)).toBeGreaterThanOrEqual(1);
    expect((await long.hit(key)).allowed).toBe(false);
    expect((await short.hit(key)).allowed).toBe(true);
  });

  it('allows exactly the limit among 50 concurrent hits', async () => {
    now = T0;
    const rl = limiter(newStore(), 10);
    const key = freshKey();
    const results = await Promise.all(Array.from({ length: 50 }, () => rl.hit(key)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    // Every hit saw its own count: remaining 9..0 once each among the allowed ones.
    expect(
      results
        .filter((r) => r.allowed)
        .map((r) => r.remaining)
        .sort((x, y) => x - y),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
}

describe('MemoryRateLimitStore', () => {
  storeConformance(() => new MemoryRateLimitStore());

  it('sweeps ended windows by itself so one-off keys do not pile up', async () => {
    const store = new MemoryRateLimitStore(3);
    await store.hit('a', 1_000, T0);
    await store.hit('b', 1_000, T0);
    expect(store.size).toBe(2);
    await store.hit('c', 1_000, T0 + 5_000);
    expect(store.size).toBe(1);
  });
});

describeWith(['postgres'], 'PostgresRateLimitStore', () => {
  const TABLE = 'rl_test.rate_limit_counters';
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pools: pg.Pool[] = [];
  const newPool = () => {
    // Idle connections close at once: the suite makes many pools and the server allows ~100 clients.
    const pool = new pg.Pool({ connectionString: db.url, max: 20, idleTimeoutMillis: 50 });
    // Dropping the database at the end terminates connections still closing; that is expected.
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    db = await createTestDatabase('kw_ratelimit');
    const pool = newPool();
    await pool.query('CREATE SCHEMA rl_test');
    await pool.query(rateLimitTableSql(TABLE));
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    pools = [];
    await db?.drop();
  });

  // One pool per store, as each gateway replica has its own.
  storeConformance(() => new PostgresRateLimitStore(newPool(), { table: TABLE }));

  it('shares counts between replicas', async () => {
    const replicaA = new RateLimiter(new PostgresRateLimitStore(newPool(), { table: TABLE }), {
      name: 'shared',
      limit: 10,
      windowSeconds: 60,
    });
    const replicaB = new RateLimiter(new PostgresRateLimitStore(newPool(), { table: TABLE }), {
      name: 'shared',
      limit: 10,
      windowSeconds: 60,
    });
    const key = `replicas-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? replicaA : replicaB).hit(key)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it('counts several keys with their own counts in one statement (hitMany)', async () => {
    const store = new PostgresRateLimitStore(newPool(), { table: TABLE });
    const [a, b] = [`many-a-${Date.now()}`, `many-b-${Date.now()}`];
    expect(
      await store.hitMany(
        [
          { key: a, count: 3, windowMs: 60_000 },
          { key: b, count: 1, windowMs: 1_000 },
        ],
        T0,
      ),
    ).toEqual([
      { hits: 3, windowEndsAtMs: T0 + 60_000 },
      { hits: 1, windowEndsAtMs: T0 + 1_000 },
    ]);
    // b's window has ended: its next count opens a new one; a's adds up.
    expect(
      await store.hitMany(
        [
          { key: b, count: 2, windowMs: 1_000 },
          { key: a, count: 4, windowMs: 60_000 },
        ],
        T0 + 1_000,
      ),
    ).toEqual([
      { hits: 2, windowEndsAtMs: T0 + 2_000 },
      { hits: 7, windowEndsAtMs: T0 + 60_000 },
    ]);
  });

  describe('BatchedRateLimitStore over it (one replica: exact)', () => {
    // Syncs only when a test asks (a long interval), so the conformance cases see local counts and synced ones alike.
    // One pool for all of them: a batched store holds a connection only while it syncs.
    let pool: pg.Pool | undefined;
    storeConformance(
      () =>
        new BatchedRateLimitStore(new PostgresRateLimitStore((pool ??= newPool()), { table: TABLE }), {
          syncEveryMs: 60_000,
        }),
    );
  });

  it("batched replicas converge: each sync teaches a replica the others' hits", async () => {
    const pool = newPool();
    const failed: unknown[] = [];
    const replica = () =>
      new BatchedRateLimitStore(new PostgresRateLimitStore(pool, { table: TABLE }), {
        syncEveryMs: 60_000,
        onSyncError: (err) => failed.push(err),
      });
    const [a, b] = [replica(), replica()];
    const limiterA = new RateLimiter(a, { name: 'batched', limit: 10, windowSeconds: 60 });
    const limiterB = new RateLimiter(b, { name: 'batched', limit: 10, windowSeconds: 60 });
    const key = `batched-${Date.now()}`;
    for (let i = 0; i < 6; i++) expect((await limiterA.hit(key)).allowed).toBe(true);
    // Before a sync, B knows only its own hits (the precision given up for no row lock per request).
    expect((await limiterB.hit(key)).remaining).toBe(9);
    await a.sync();
    await b.sync();
    // B now holds the shared total (6 + 1) and its next hit is the 8th.
    expect((await limiterB.hit(key)).remaining).toBe(2);
    await b.sync();
    // A learns the total with its next sync of something to send: its 7th local hit is the 9th.
    expect((await limiterA.hit(key)).remaining).toBe(3);
    await a.sync();
    expect((await limiterA.hit(key)).remaining).toBe(0);
    expect((await limiterA.hit(key)).allowed).toBe(false);
    expect(failed).toEqual([]);
  });

  it('a batched replica keeps its counts through a failed sync and sends them with the next', async () => {
    const errors: unknown[] = [];
    const pool = newPool();
    const store = new BatchedRateLimitStore(new PostgresRateLimitStore(pool, { table: 'rl_test.missing_table' }), {
      syncEveryMs: 60_000,
      onSyncError: (err) => errors.push(err),
    });
    await store.hit('k', 60_000, T0);
    await store.sync();
    expect(errors).toHaveLength(1);
    expect(await store.hit('k', 60_000, T0)).toEqual({ hits: 2, windowEndsAtMs: T0 + 60_000 });
  });

  it('survives a replica whose clock lags: it counts into the open window', async () => {
    const store = new PostgresRateLimitStore(newPool(), { table: TABLE });
    const key = `skew-${Date.now()}`;
    expect(await store.hit(key, 60_000, T0)).toEqual({ hits: 1, windowEndsAtMs: T0 + 60_000 });
    expect(await store.hit(key, 60_000, T0 - 2_000)).toEqual({ hits: 2, windowEndsAtMs: T0 + 60_000 });
  });

  it('refuses a table name it would have to trust', () => {
    expect(() => new PostgresRateLimitStore(newPool(), { table: 'x; DROP TABLE y' })).toThrow(
      /Invalid rate limit table/,
    );
    expect(() => rateLimitTableSql('"quoted"')).toThrow(/Invalid rate limit table/);
  });
});
