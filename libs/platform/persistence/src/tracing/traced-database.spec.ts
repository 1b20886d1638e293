import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { tracingEnabled } from '@kw/platform-tracing';
import { tracePool, tracePrismaClient } from './traced-database.js';

describe('database tracing while tracing is off', () => {
  it('returns the pool and the Prisma client themselves, unwrapped', async () => {
    expect(tracingEnabled()).toBe(false);
    const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    const query = pool.query;
    expect(tracePool(pool)).toBe(pool);
    expect(pool.listenerCount('connect')).toBe(0);
    expect(pool.query).toBe(query);
    await pool.end();

    let extended = false;
    const client = {
      $extends: () => {
        extended = true;
        return {};
      },
    };
    expect(tracePrismaClient(client)).toBe(client);
    expect(extended).toBe(false);
  });
});
