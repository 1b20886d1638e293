import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/**
 * The search component's one Prisma client of the data plane (one per module: PGlite has one
 * connection).
 *
 * Transactions follow the transaction rule of docs/architecture.md, which
 * @kw/platform-persistence enforces (transaction-rule.ts).
 *
 * Search reads the fragments component's data only through the views of its read contract
 * (schema search_read, docs/search-listing-and-graph.md#the-read-contract-with-fragments);
 * its own tables are saved_searches, search_queries and vector_index_sync.
 */
export const SEARCH_DB = Symbol('SEARCH_DB');
export const searchDbProviders = prismaClientProviders(SEARCH_DB, 'data', 'search');
export type SearchDb = DataPrismaClient;
