import { DataPrisma as Prisma, sqlStatements, type Database, type SqlExecutor } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { Inject, Injectable } from '@nestjs/common';
import { GRAPH_FRAGMENTS_PER_NODE } from '../search-limits.js';

export interface EntityRow {
  id: string;
  kind: string;
  name: string;
  mentionCount: number;
}

export interface EdgeRow {
  sourceId: string;
  targetId: string;
  kind: string;
  weight: number;
}

export interface FragmentRef {
  id: string;
  title: string;
}

const liveMentions = (workspaceId: string) => Prisma.sql`
  JOIN search_read.graph_mentions m ON m.entity_id = e.id
  JOIN search_read.fragments f ON f.id = m.fragment_id AND f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL`;

// Views carry no primary key: grouping by e.id alone would not let the other columns of e be
// selected (a table's functional dependency), so they are grouped on too (same groups).
const entityColumns = Prisma.sql`e.id::text AS id, e.kind, e.name, count(DISTINCT m.fragment_id)::int AS "mentionCount"`;

/**
 * Reads of the workspace graph. Every query is scoped by workspace id and counts only what
 * live fragments (same workspace, not archived) state: an entity known only from archived
 * fragments does not appear, nor does a relation stated only by one.
 */
@Injectable()
export class GraphRepository {
  /** Through plain `pg`: a Prisma `$queryRaw` still passes its query compiler (decision 0008). */
  private readonly sql: SqlExecutor;

  constructor(@Inject(DATABASE) database: Pick<Database, 'pool'>) {
    this.sql = sqlStatements(() => database.pool);
  }

  async graphStats(workspaceId: string) {
    const entities = await this.sql.$queryRaw<Array<{ kind: string; count: number }>>`
      SELECT e.kind, count(DISTINCT e.id)::int AS count FROM search_read.graph_entities e ${liveMentions(workspaceId)}
      WHERE e.workspace_id = ${workspaceId}::uuid GROUP BY e.kind ORDER BY count DESC, e.kind`;
    const relations = await this.sql.$queryRaw<Array<{ kind: string; count: number }>>`
      SELECT r.kind, count(*)::int AS count FROM search_read.graph_relations r
      JOIN search_read.fragments f ON f.id = r.fragment_id AND f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL
      WHERE r.workspace_id = ${workspaceId}::uuid GROUP BY r.kind ORDER BY count DESC, r.kind`;
    const [{ mentions }] = await this.sql.$queryRaw<Array<{ mentions: number }>>`
      SELECT count(*)::int AS mentions FROM search_read.graph_entities e ${liveMentions(workspaceId)} WHERE e.workspace_id = ${workspaceId}::uuid`;
    const sum = (rows: Array<{ count: number }>) => rows.reduce((n, r) => n + r.count, 0);
    return {
      entities: sum(entities),
      relations: sum(relations),
      mentions,
      entitiesByKind: entities,
      relationsByKind: relations,
    };
  }

  /** Entities whose normalized name starts with (or contains) the text, most mentioned first. */
  async searchEntities(
    workspaceId: string,
    text: string,
    match: 'prefix' | 'substring',
    kind: string,
    limit: number,
  ): Promise<EntityRow[]> {
    const escaped = normalizeName(text).replace(/[\\%_]/g, (c) => `\\${c}`);
    const pattern = match === 'prefix' ? `${escaped}%` : `%${escaped}%`;
    return this.sql.$queryRaw<EntityRow[]>`
      SELECT ${entityColumns} FROM search_read.graph_entities e ${liveMentions(workspaceId)}
      WHERE e.workspace_id = ${workspaceId}::uuid AND e.normalized_name LIKE ${pattern} ${kind ? Prisma.sql`AND e.kind = ${kind}` : Prisma.empty}
      GROUP BY e.id, e.kind, e.name ORDER BY "mentionCount" DESC, e.name, e.id LIMIT ${limit}`;
  }

  async entitiesByIds(workspaceId: string, ids: readonly string[]): Promise<EntityRow[]> {
    if (ids.length === 0) return [];
    return this.sql.$queryRaw<EntityRow[]>`
      SELECT ${entityColumns} FROM search_read.graph_entities e ${liveMentions(workspaceId)}
      WHERE e.workspace_id = ${workspaceId}::uuid AND e.id = ANY(${[...ids]}::uuid[]) GROUP BY e.id, e.kind, e.name`;
  }

  /** Entities whose whole name occurs in the text (words bounded by spaces or punctuation). */
  async entitiesNamedIn(workspaceId: string, text: string, limit: number): Promise<EntityRow[]> {
    const padded = ` ${normalizeName(text).replace(/[\s,;:!?()"'[\]{}]+|\.(?=\s|$)/g, ' ')} `;
    return this.sql.$queryRaw<EntityRow[]>`
      SELECT ${entityColumns} FROM search_read.graph_entities e ${liveMentions(workspaceId)}
      WHERE e.workspace_id = ${workspaceId}::uuid AND length(e.normalized_name) >= 2 AND strpos(${padded}, ' ' || e.normalized_name || ' ') > 0
      GROUP BY e.id, e.kind, e.name ORDER BY "mentionCount" DESC, e.name, e.id LIMIT ${limit}`;
  }

  /** The relations touching any of the entities, merged per (source, target, kind) with how many live fragments state them. */
  async edgesAround(workspaceId: string, ids: readonly string[]): Promise<EdgeRow[]> {
    if (ids.length === 0) return [];
    return this.sql.$queryRaw<EdgeRow[]>`
      SELECT r.source_id::text AS "sourceId", r.target_id::text AS "targetId", r.kind, count(DISTINCT r.fragment_id)::int AS weight
      FROM search_read.graph_relations r
      JOIN search_read.fragments f ON f.id = r.fragment_id AND f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL
      WHERE r.workspace_id = ${workspaceId}::uuid AND (r.source_id = ANY(${[...ids]}::uuid[]) OR r.target_id = ANY(${[...ids]}::uuid[]))
      GROUP BY r.source_id, r.target_id, r.kind ORDER BY weight DESC, r.source_id, r.target_id, r.kind`;
  }

  /** The live fragments mentioning each entity (newest first, a few per entity). */
  async fragmentsMentioning(
    workspaceId: string,
    ids: readonly string[],
    perEntity = GRAPH_FRAGMENTS_PER_NODE,
  ): Promise<Map<string, FragmentRef[]>> {
    const byEntity = new Map<string, FragmentRef[]>();
    if (ids.length === 0) return byEntity;
    const rows = await this.sql.$queryRaw<Array<{ entityId: string; id: string; title: string }>>`
      SELECT entity_id::text AS "entityId", id, title FROM (
        SELECT m.entity_id, f.id::text AS id, f.title, row_number() OVER (PARTITION BY m.entity_id ORDER BY f.created_at DESC, f.id) AS n
        FROM search_read.graph_mentions m JOIN search_read.fragments f ON f.id = m.fragment_id AND f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL
        WHERE m.entity_id = ANY(${[...ids]}::uuid[])
      ) ranked WHERE n <= ${perEntity} ORDER BY "entityId", n`;
    for (const row of rows)
      byEntity.set(row.entityId, [...(byEntity.get(row.entityId) ?? []), { id: row.id, title: row.title }]);
    return byEntity;
  }
}

/** The key graph_entities.normalized_name is compared on (same rule as the enrichment's). */
export const normalizeName = (name: string): string =>
  name
    .replace(/\u0000/g, '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ');
