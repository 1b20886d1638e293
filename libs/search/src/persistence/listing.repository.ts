import { Inject, Injectable } from '@nestjs/common';
import { DataPrisma as Prisma, sqlStatements, type Database, type SqlExecutor } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import type { SqlFragment } from '../service/listing/filter/index.js';

/** A listing as the filter compiler and the field whitelist describe it (every text a constant of theirs). */
export interface ListingQuery {
  workspaceId: string;
  /** Output name and column expression of each selected field. */
  columns: Array<{ name: string; sql: SqlFragment }>;
  /** The compiled filter. */
  condition: SqlFragment;
  /** The requested order keys; the fragment id always comes last. */
  orderBy: Array<{ sql: SqlFragment; direction: 'asc' | 'desc' }>;
  includeArchived: boolean;
  limit: number;
  offset: number;
}

const prismaSql = (fragment: SqlFragment): Prisma.Sql => Prisma.sql(fragment.strings, ...(fragment.values as never[]));

/**
 * Structured listing: the statement around the compiled filter. The query reads the fragments
 * as `f` joined to their types as `ft` (the aliases of filter/fields.ts).
 */
@Injectable()
export class ListingRepository {
  /**
   * Plain `pg` (decision 0008): a listing is one of the search modes agents call most. The
   * selectable columns are uuid, text, text[], int4 and timestamptz, which `pg` reads as Prisma
   * did (strings, arrays, numbers, dates); only the count's int8 comes back as a string.
   */
  private readonly sql: SqlExecutor;

  constructor(@Inject(DATABASE) database: Pick<Database, 'pool'>) {
    this.sql = sqlStatements(() => database.pool);
  }

  /** One page of rows (selected fields by name) and the count of all matching rows. */
  async list(query: ListingQuery): Promise<{ rows: Record<string, unknown>[]; total: number }> {
    const from = Prisma.sql`FROM search_read.fragments f JOIN search_read.fragment_types ft ON ft.id = f.fragment_type_id
      WHERE f.workspace_id = ${query.workspaceId}::uuid ${query.includeArchived ? Prisma.empty : Prisma.sql`AND f.archived_at IS NULL`} AND ${prismaSql(query.condition)}`;
    const columns = Prisma.join(
      query.columns.map(({ name, sql }) => Prisma.sql`${prismaSql(sql)} AS ${Prisma.raw(`"${name}"`)}`),
    );
    const keys = query.orderBy.map(
      ({ sql, direction }) =>
        Prisma.sql`${prismaSql(sql)} ${Prisma.raw(direction === 'asc' ? 'ASC NULLS LAST' : 'DESC NULLS FIRST')}`,
    );
    if (query.orderBy.length === 0) keys.push(Prisma.sql`f.created_at ASC`);
    const orderBy = Prisma.join([...keys, Prisma.sql`f.id ASC`]);
    const rows = await this.sql.$queryRaw<
      Record<string, unknown>[]
    >`SELECT ${columns} ${from} ORDER BY ${orderBy} LIMIT ${query.limit} OFFSET ${query.offset}`;
    const [{ total }] = await this.sql.$queryRaw<Array<{ total: string }>>`SELECT count(*) AS total ${from}`;
    return { rows, total: Number(total) };
  }
}
