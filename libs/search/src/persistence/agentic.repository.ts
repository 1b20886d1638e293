import { Inject, Injectable } from '@nestjs/common';
import { sqlStatements, type Database, type SqlExecutor } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

export interface LeadText {
  title: string;
  snippet: string;
}

/** The reads of agentic search besides the graph's and the search's own: its leads' texts. */
@Injectable()
export class AgenticRepository {
  /** Through plain `pg`: a Prisma `$queryRaw` still passes its query compiler (decision 0008). */
  private readonly sql: SqlExecutor;

  constructor(@Inject(DATABASE) database: Pick<Database, 'pool'>) {
    this.sql = sqlStatements(() => database.pool);
  }

  /** Per live fragment: its title, and its summary (else its content) whitespace collapsed, cut at `chars` characters. */
  async leadTexts(workspaceId: string, ids: readonly string[], chars: number): Promise<Map<string, LeadText>> {
    if (ids.length === 0) return new Map();
    const rows = await this.sql.$queryRaw<Array<{ id: string; title: string; snippet: string }>>`
      SELECT id::text AS id, title, left(regexp_replace(coalesce(nullif(summary, ''), content), '\\s+', ' ', 'g'), ${chars}) AS snippet
      FROM search_read.fragments WHERE workspace_id = ${workspaceId}::uuid AND archived_at IS NULL AND id = ANY(${[...ids]}::uuid[])`;
    return new Map(rows.map((r) => [r.id, { title: r.title, snippet: r.snippet }]));
  }
}
