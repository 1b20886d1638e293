import { afterAll } from 'vitest';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith } from '../../support/services.js';
import { startFragmentsPlatform } from '../fragments/fragments-fixture.js';
import { searchScenario } from './search-scenario.js';

/**
 * The same scenario on PostgreSQL, once per vector index a server without the `vector`
 * extension can get: the in-process index (read from Postgres at each query), and exact cosine
 * in SQL (VECTOR_MEMORY_MB=0). With pgvector installed both runs use pgvector.
 */
const VARIANTS: Array<{ name: string; database: string; env: Record<string, string>; indexes: string[] }> = [
  { name: 'in-process index', database: 'kw_search', env: {}, indexes: ['memory', 'pgvector'] },
  {
    name: 'exact cosine in SQL',
    database: 'kw_search_exact',
    env: { VECTOR_MEMORY_MB: '0' },
    indexes: ['exact', 'pgvector'],
  },
];

for (const variant of VARIANTS) {
  describeWith(['postgres'], `workspace search (PostgreSQL, pgvector or the ${variant.name})`, () => {
    let drop: (() => Promise<void>) | undefined;
    afterAll(async () => {
      await drop?.();
    });
    searchScenario(async () => {
      const database = await createTestDatabase(variant.database);
      drop = database.drop;
      return startFragmentsPlatform({ DATABASE_URL: database.url, ...variant.env });
    }, variant.indexes);
  });
}
