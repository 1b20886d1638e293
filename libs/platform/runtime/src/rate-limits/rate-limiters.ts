import type { AppConfig } from '@kw/platform-config';
import { MemoryRateLimitStore, PostgresRateLimitStore, RateLimiter, type RateLimitStore } from '@kw/platform-rate-limit';
import type { PlatformDatabase } from '../database.js';

export const RATE_LIMITERS = Symbol('RATE_LIMITERS');

export interface RateLimiters {
  perCredential: RateLimiter;
  perWorkspace: RateLimiter;
  perAddress: RateLimiter;
  store: RateLimitStore;
}

/**
 * Counters live in memory when one process serves the API (embedded, Leaf) and in Postgres
 * when several gateway replicas must share them (distributed).
 */
export function createRateLimiters(config: AppConfig, database: PlatformDatabase | undefined): RateLimiters {
  const store: RateLimitStore =
    config.RUN_MODE === 'distributed' && database
      ? new PostgresRateLimitStore(database.pool, { table: 'control.rate_limit_counters' })
      : new MemoryRateLimitStore();
  const windowSeconds = config.RATE_LIMIT_WINDOW_SECONDS;
  return {
    store,
    perCredential: new RateLimiter(store, { name: 'credential', limit: config.RATE_LIMIT_PER_CREDENTIAL, windowSeconds }),
    perWorkspace: new RateLimiter(store, { name: 'workspace', limit: config.RATE_LIMIT_PER_WORKSPACE, windowSeconds }),
    perAddress: new RateLimiter(store, { name: 'address', limit: config.RATE_LIMIT_PER_ADDRESS, windowSeconds }),
  };
}
