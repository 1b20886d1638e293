import { Inject, Injectable } from '@nestjs/common';
import { sqlStatements, type Database, type SqlExecutor } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { holdsNoExclusion } from './query-conditions.js';

export interface LeadText {
  title: string;
  snippet: string;
}

/** The reads of agentic search besides the graph's and the search's own: its leads' texts, the words they hold, what the query excludes. */
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

  /**
   * Per live fragment among `ids`: which of `terms` (single words, read as the index reads them:
   * stemmed, stop words holding nothing) its full-text document holds. What a lead's `why` names.
   */
  async termsHeld(
    workspaceId: string,
    ids: readonly string[],
    terms: readonly string[],
  ): Promise<Map<string, Set<string>>> {
    const held = new Map<string, Set<string>>();
    if (ids.length === 0 || terms.length === 0) return held;
    const rows = await this.sql.$queryRaw<Array<{ id: string; term: string }>>`
      SELECT f.id::text AS id, w.term FROM search_read.fragments f, unnest(${[...terms]}::text[]) AS w(term)
      WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND f.id = ANY(${[...ids]}::uuid[])
        AND f.search_document @@ plainto_tsquery('english', w.term)`;
    for (const { id, term } of rows) held.set(id, (held.get(id) ?? new Set()).add(term));
    return held;
  }

  /** The live fragments among `ids` that hold one of the query's exclusions (words or phrases). */
  async excluded(workspaceId: string, ids: readonly string[], exclusions: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0 || exclusions.length === 0) return new Set();
    const rows = await this.sql.$queryRaw<Array<{ id: string }>>`
      SELECT f.id::text AS id FROM search_read.fragments f
      WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND f.id = ANY(${[...ids]}::uuid[])
        AND NOT ${holdsNoExclusion(exclusions)}`;
    return new Set(rows.map((r) => r.id));
  }
}
