import { describe } from 'vitest';
import { startFragmentsPlatform } from '../fragments/fragments-fixture.js';
import { searchScenario } from './search-scenario.js';

/** Workspace search on the embedded platform (PGlite: pgvector adapter). */
describe('workspace search (embedded, pgvector)', () => {
  searchScenario(() => startFragmentsPlatform(), ['pgvector']);
});
