import { afterAll } from 'vitest';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith } from '../../support/services.js';
import { startFragmentsPlatform } from '../fragments/fragments-fixture.js';
import { searchScenario } from './search-scenario.js';

/**
 * The same scenario on PostgreSQL. Without the `vector` extension the search component falls
 * back to exact cosine similarity in SQL (and says so at start-up).
 */
describeWith(['postgres'], 'workspace search (PostgreSQL, pgvector or exact cosine)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });
  searchScenario(async () => {
    const database = await createTestDatabase('kw_search');
    drop = database.drop;
    return startFragmentsPlatform({ DATABASE_URL: database.url });
  }, ['exact', 'pgvector']);
});
