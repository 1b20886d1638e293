import { Inject, Injectable } from '@nestjs/common';
import { ControlPrisma as Prisma, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { CHAT_DB, type ChatDb } from './chat-database.js';

export interface ModelUsageRow {
  userId: string;
  tokenId: string;
  credential: string;
  model: string;
  provider: string;
  kind: string;
  inputTokens: number;
  outputTokens: number;
  images: number;
  searches?: number;
  embeddings?: number;
  workspaceId?: string | null;
  latencyMs: number;
  status: string;
}

/** The dimensions usage can be grouped by, and the column each reads. */
export const USAGE_DIMENSIONS = {
  day: `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  model: 'model',
  capability: 'kind',
  credential: 'token_id',
  workspace: `coalesce(workspace_id::text, '')`,
} as const;
export type UsageDimension = keyof typeof USAGE_DIMENSIONS;

export interface UsageQuery {
  from: Date;
  /** Exclusive. */
  to: Date;
  groupBy: UsageDimension[];
  /** Only this user's rows; undefined: every user's (an administrator, or a workspace's owner with workspaceId). */
  userId?: string;
  workspaceId?: string;
  capability?: string;
  model?: string;
  limit: number;
  offset: number;
}

export interface UsageSum {
  day: string;
  model: string;
  capability: string;
  credentialId: string;
  workspaceId: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  images: number;
  searches: number;
  embeddings: number;
}

/**
 * The insert of usage rows, one array per column (every call of a batch in one statement). Plain
 * `pg` (decision 0008): Prisma's createMany cost about 0.25 ms of CPU per row (26 ms for a
 * hundred, 1.5-2 ms for one or two), against 0.3-0.6 ms a statement here; every model call and
 * enrichment pays it.
 */
const INSERT_USAGE = `
  INSERT INTO control.model_usage
    (user_id, token_id, credential, model, provider, kind, input_tokens, output_tokens, images,
     searches, embeddings, workspace_id, latency_ms, status, event_id)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
     $8::int[], $9::int[], $10::int[], $11::int[], $12::uuid[], $13::int[], $14::text[], $15::text[])
  ON CONFLICT (event_id) DO NOTHING`;

function insertValues(rows: Array<ModelUsageRow & { eventId?: string }>): unknown[] {
  const column = <T>(read: (row: ModelUsageRow & { eventId?: string }) => T) => rows.map(read);
  return [
    column((r) => r.userId),
    column((r) => r.tokenId),
    column((r) => r.credential),
    column((r) => r.model),
    column((r) => r.provider),
    column((r) => r.kind),
    column((r) => r.inputTokens),
    column((r) => r.outputTokens),
    column((r) => r.images),
    column((r) => r.searches ?? 0),
    column((r) => r.embeddings ?? 0),
    column((r) => r.workspaceId ?? null),
    column((r) => r.latencyMs),
    column((r) => r.status),
    column((r) => r.eventId ?? null),
  ];
}

/** One row per model call, AI helper call or web search; `/api/ai/usage` adds them up. */
@Injectable()
export class ModelUsageRepository {
  constructor(
    @Inject(CHAT_DB) private readonly db: ChatDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  async insertMany(rows: ModelUsageRow[]): Promise<void> {
    if (rows.length > 0) await this.database.pool.query(INSERT_USAGE, insertValues(rows));
  }

  /** A record made from an event, once: a redelivery of the same event adds nothing (its id is unique). */
  async insertForEvent(eventId: string, row: ModelUsageRow): Promise<void> {
    await this.database.pool.query(INSERT_USAGE, insertValues([{ ...row, eventId }]));
  }

  /**
   * Sums per group of the requested dimensions, ordered by them, a page of them, and how many
   * groups there are. The grouping expressions come from USAGE_DIMENSIONS only, never from input.
   */
  async sums(query: UsageQuery): Promise<{ rows: UsageSum[]; total: number }> {
    const keys = (['day', 'model', 'capability', 'credential', 'workspace'] as const).map((d) =>
      query.groupBy.includes(d) ? USAGE_DIMENSIONS[d] : `''`,
    );
    const conditions = [Prisma.sql`at >= ${query.from} AND at < ${query.to}`];
    if (query.userId) conditions.push(Prisma.sql`user_id = ${query.userId}::uuid`);
    if (query.workspaceId) conditions.push(Prisma.sql`workspace_id = ${query.workspaceId}::uuid`);
    if (query.capability) conditions.push(Prisma.sql`kind = ${query.capability}`);
    if (query.model) conditions.push(Prisma.sql`model = ${query.model}`);
    const where = Prisma.join(conditions, ' AND ');
    const groups = Prisma.raw(keys.map((k, i) => `${k} AS g${i}`).join(', '));
    const groupBy = Prisma.raw(keys.map((_, i) => `g${i}`).join(', '));
    const rows = await this.db.$queryRaw<
      Array<{
        g0: string;
        g1: string;
        g2: string;
        g3: string;
        g4: string;
        requests: bigint;
        input: bigint;
        output: bigint;
        images: bigint;
        searches: bigint;
        embeddings: bigint;
        groups: bigint;
      }>
    >`SELECT ${groups}, count(*) AS requests, sum(input_tokens) AS input, sum(output_tokens) AS output,
        sum(images) AS images, sum(searches) AS searches, sum(embeddings) AS embeddings,
        count(*) OVER () AS groups
      FROM control.model_usage WHERE ${where}
      GROUP BY ${groupBy} ORDER BY ${groupBy} LIMIT ${query.limit} OFFSET ${query.offset}`;
    const total = rows.length > 0 ? Number(rows[0].groups) : await this.countGroups(groups, groupBy, where);
    return {
      total,
      rows: rows.map((r) => ({
        day: r.g0,
        model: r.g1,
        capability: r.g2,
        credentialId: r.g3,
        workspaceId: r.g4,
        requests: Number(r.requests),
        inputTokens: Number(r.input),
        outputTokens: Number(r.output),
        images: Number(r.images),
        searches: Number(r.searches),
        embeddings: Number(r.embeddings),
      })),
    };
  }

  /** The number of groups when the page is past the last one (the window count is on the rows). */
  private async countGroups(groups: Prisma.Sql, groupBy: Prisma.Sql, where: Prisma.Sql): Promise<number> {
    const [{ n }] = await this.db.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM (
      SELECT ${groups} FROM control.model_usage WHERE ${where} GROUP BY ${groupBy}) g`;
    return Number(n);
  }

  /** The user's model tokens (input and output) and images since `from`: what monthly budgets count. */
  async spentSince(userId: string, from: Date): Promise<{ tokens: number; images: number }> {
    const [row] = await this.db.$queryRaw<Array<{ tokens: bigint | null; images: bigint | null }>>`
      SELECT sum(input_tokens + output_tokens) AS tokens, sum(images) AS images
      FROM control.model_usage WHERE user_id = ${userId}::uuid AND at >= ${from}`;
    return { tokens: Number(row?.tokens ?? 0), images: Number(row?.images ?? 0) };
  }

  recentOf(userId: string, limit: number) {
    return this.db.modelUsage.findMany({ where: { userId }, orderBy: { at: 'desc' }, take: limit });
  }
}
