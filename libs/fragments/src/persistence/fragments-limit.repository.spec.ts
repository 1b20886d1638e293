import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DataPrismaClient } from '@kw/platform-persistence';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { FragmentsRepository } from './fragments.repository.js';
import type { FragmentRow } from './rows.js';

/**
 * The locked insert the fragment quota uses near the limit, on real Postgres with a pool of
 * several connections: creates at the same instant cannot pass the limit together.
 */
describeWith(['postgres'], 'fragment inserts within the workspace limit (advisory lock)', () => {
  let pool: pg.Pool;
  let db: DataPrismaClient;
  let database: MigratedTestDatabase<'data'>;
  let repository: FragmentsRepository;
  const typeOf = new Map<string, string>();

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_fragment_limit', 'data', 8);
    ({ pool, prisma: db } = database);
    repository = new FragmentsRepository(db, { pool } as never);
  });
  afterAll(() => database?.close());

  const workspace = async () => {
    const id = randomUUID();
    typeOf.set(id, (await db.fragmentType.create({ data: { workspaceId: id, key: 'note', name: 'Note' } })).id);
    return id;
  };
  const row = (workspaceId: string, title: string): FragmentRow => {
    const now = new Date();
    return {
      id: randomUUID(),
      workspaceId,
      fragmentTypeId: typeOf.get(workspaceId)!,
      title,
      content: `${title} content`,
      summary: null,
      summarySource: null,
      tags: [],
      enhanceTags: false,
      key: null,
      createdVia: 'api',
      enrichment: {},
      createdBy: randomUUID(),
      updatedBy: randomUUID(),
      status: 'published',
      version: 1,
      createdAt: now,
      updatedAt: now,
      archivedAt: null,
    };
  };
  const event = (r: FragmentRow) => ({
    aggregateType: 'fragment',
    aggregateId: r.id,
    eventType: 'fragment.created',
    payload: {},
  });
  const insert = (workspaceId: string, rows: FragmentRow[], max: number) =>
    repository.insertWithinLimit(workspaceId, rows, rows.map(event), max);

  it('lets exactly the room left through when twenty creates race for five places', async () => {
    const ws = await workspace();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => insert(ws, [row(ws, `n${i}`)], 5)));
    expect(answers.filter((a) => a.written === 1)).toHaveLength(5);
    expect(answers.filter((a) => a.written === 0).every((a) => a.count === 5)).toBe(true);
    // Each winner saw the ones before it: counts 1 to 5, once each.
    expect(
      answers
        .filter((a) => a.written === 1)
        .map((a) => a.count)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5]);
    expect(await repository.countInWorkspace(ws)).toBe(5);
    const outbox = await db.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM data.outbox WHERE aggregate_id IN (SELECT id::text FROM data.fragments WHERE workspace_id = ${ws}::uuid)`;
    expect(outbox[0]!.n).toBe(5);
  });

  it('writes a batch up to the room left, from its first row, and the rest of a racing batch not at all', async () => {
    const ws = await workspace();
    await insert(ws, [row(ws, 'seed')], 10);
    const [a, b] = await Promise.all([
      insert(
        ws,
        Array.from({ length: 6 }, (_, i) => row(ws, `a${i}`)),
        10,
      ),
      insert(
        ws,
        Array.from({ length: 6 }, (_, i) => row(ws, `b${i}`)),
        10,
      ),
    ]);
    // One batch went first (6 of 6), the other got the 3 places left.
    expect([a!.written, b!.written].sort()).toEqual([3, 6]);
    expect(Math.max(a!.count, b!.count)).toBe(10);
    const titles = (await db.fragment.findMany({ where: { workspaceId: ws }, select: { title: true } })).map(
      (f) => f.title,
    );
    const second = a!.written === 3 ? 'a' : 'b';
    expect(titles.filter((t) => t.startsWith(second)).sort()).toEqual([`${second}0`, `${second}1`, `${second}2`]);
  });

  it('locks per workspace: another workspace’s creates are not counted, and archived fragments are', async () => {
    const [full, other] = [await workspace(), await workspace()];
    await insert(full, [row(full, 'one'), row(full, 'two')], 2);
    await db.fragment.updateMany({ where: { workspaceId: full }, data: { archivedAt: new Date() } });
    expect(await insert(full, [row(full, 'three')], 2)).toEqual({ written: 0, count: 2 });
    expect(await insert(other, [row(other, 'first')], 2)).toEqual({ written: 1, count: 1 });
  });
});
