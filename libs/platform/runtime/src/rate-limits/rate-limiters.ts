import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import {
  BatchedRateLimitStore,
  FailedAuthThrottle,
  MemoryRateLimitStore,
  PostgresRateLimitStore,
  RateLimiter,
  type RateLimitStore,
} from '@kw/platform-rate-limit';
import type { PlatformDatabase } from '../database.js';

export const RATE_LIMITERS = Symbol('RATE_LIMITERS');

export interface RateLimiters {
  perCredential: RateLimiter;
  perWorkspace: RateLimiter;
  perAddress: RateLimiter;
  failedAuth: FailedAuthThrottle;
  /** A plan's requestsPerMinute, per account (docs/plans.md): one limiter per plan and cap. */
  perAccount(planId: string, perMinute: number): RateLimiter;
  store: RateLimitStore;
}

/**
 * Counters live in memory when one process serves the API (embedded, Leaf) and in Postgres
 * when several gateway replicas must share them (distributed), counted locally and sent in
 * batches (BatchedRateLimitStore: no row lock or round trip on a request's path).
 */
export function createRateLimiters(
  config: AppConfig,
  database: PlatformDatabase | undefined,
  logger?: Logger,
): RateLimiters {
  const store: RateLimitStore =
    config.RUN_MODE === 'distributed' && database
      ? new BatchedRateLimitStore(new PostgresRateLimitStore(database.pool, { table: 'control.rate_limit_counters' }), {
          onSyncError: (err) => logger?.warn({ err }, 'rate-limit counters not synced; kept for the next sync'),
        })
      : new MemoryRateLimitStore();
  const windowSeconds = config.RATE_LIMIT_WINDOW_SECONDS;
  const planLimiters = new Map<string, RateLimiter>();
  return {
    store,
    perAccount(planId, perMinute) {
      const name = `plan-${planId}-${perMinute}`;
      let limiter = planLimiters.get(name);
      if (!limiter) {
        limiter = new RateLimiter(store, { name, limit: Math.max(1, perMinute), windowSeconds: 60 });
        planLimiters.set(name, limiter);
      }
      return limiter;
    },
    perCredential: new RateLimiter(store, {
      name: 'credential',
      limit: config.RATE_LIMIT_PER_CREDENTIAL,
      windowSeconds,
    }),
    perWorkspace: new RateLimiter(store, { name: 'workspace', limit: config.RATE_LIMIT_PER_WORKSPACE, windowSeconds }),
    perAddress: new RateLimiter(store, { name: 'address', limit: config.RATE_LIMIT_PER_ADDRESS, windowSeconds }),
    failedAuth: new FailedAuthThrottle(
      new RateLimiter(store, { name: 'authfail-address', limit: config.AUTH_FAILURES_PER_ADDRESS, windowSeconds }),
      new RateLimiter(store, {
        name: 'authfail-credential',
        limit: config.AUTH_FAILURES_PER_CREDENTIAL,
        windowSeconds,
      }),
    ),
  };
}
