import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/**
 * The search component's one Prisma client of the data plane (one per module: PGlite has one
 * connection).
 *
 * The transaction rule (docs/architecture.md): in the embedded default the pool has one
 * connection, so code inside a Prisma interactive transaction never uses the `pg` pool (it would
 * wait for the connection the transaction holds, forever). A repository that needs several
 * statements atomically uses one Prisma transaction (vector-sync.repository.ts) or one SQL
 * statement, never both.
 *
 * Search reads the fragments component's data only through the views of its read contract
 * (schema search_read, docs/search-listing-and-graph.md#the-read-contract-with-fragments);
 * its own tables are saved_searches, search_queries and vector_index_sync.
 */
export const SEARCH_DB = Symbol('SEARCH_DB');
export const searchDbProviders = prismaClientProviders(SEARCH_DB, 'data', 'search');
export type SearchDb = DataPrismaClient;
