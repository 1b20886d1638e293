import { afterAll } from 'vitest';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith } from '../../support/services.js';
import { startFragmentsPlatform } from '../fragments/fragments-fixture.js';
import { searchScenario } from './search-scenario.js';

/**
 * The same scenario on PostgreSQL. Without the `vector` extension the search component keeps
 * vectors in its own memory (read from Postgres at each query), or with VECTOR_MEMORY_MB=0
 * falls back to exact cosine similarity in SQL (and says so at start-up).
 */
describeWith(['postgres'], 'workspace search (PostgreSQL, pgvector or the in-process index)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });
  searchScenario(async () => {
    const database = await createTestDatabase('kw_search');
    drop = database.drop;
    return startFragmentsPlatform({ DATABASE_URL: database.url });
  }, ['memory', 'pgvector']);
});

describeWith(['postgres'], 'workspace search (PostgreSQL, pgvector or exact cosine in SQL)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });
  searchScenario(async () => {
    const database = await createTestDatabase('kw_search_exact');
    drop = database.drop;
    return startFragmentsPlatform({ DATABASE_URL: database.url, VECTOR_MEMORY_MB: '0' });
  }, ['exact', 'pgvector']);
});
