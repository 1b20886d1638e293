import { describe } from 'vitest';
import { startFragmentsPlatform } from '../fragments/fragments-fixture.js';
import { searchScenario } from './search-scenario.js';

/**
 * Workspace search on the embedded platform on PGlite (the fallback engine, with pgvector: the
 * pgvector adapter). The embedded default's PostgreSQL server has no pgvector; its in-process
 * index runs in search-postgres.spec.ts.
 */
describe('workspace search (embedded PGlite, pgvector)', () => {
  searchScenario(() => startFragmentsPlatform({ EMBEDDED_DATABASE: 'pglite' }), ['pgvector']);
});
