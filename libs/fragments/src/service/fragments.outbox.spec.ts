import { mkdtempSync, rmSync } from 'node:fs';
import { AccountLimits, LimitNotices } from '@kw/platform-entitlements';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RequestContext } from '@kw/platform-context';
import { createPrismaClient, migrate, openDatabase, type Database } from '@kw/platform-persistence';
import { ensureDefaultTypes } from './default-types.js';
import { FragmentsHandlers } from './fragments.handlers.js';
import type { DataDb } from '../persistence/fragments-database.js';
import { FragmentTypesRepository } from '../persistence/fragment-types.repository.js';
import { FragmentsRepository } from '../persistence/fragments.repository.js';
import type { WorkspaceGate } from './workspace-gate.js';
import { loadConfig } from '@kw/platform-config';

const WS = '11111111-1111-4111-8111-111111111111';
const USER = '22222222-2222-4222-8222-222222222222';
const context = { requestId: 'req-1', auth: { userId: USER } } as unknown as RequestContext;

/** An owner of every workspace: authorization itself is covered by the e2e suites. */
const gate = {
  authorize: async (_c: RequestContext, workspaceId: string) => ({
    workspaceId,
    userId: USER,
    relation: 'owner',
    enrichment: { summaries: true, tags: true },
  }),
} as unknown as WorkspaceGate;

/** The outbox rows are written in the same transaction as the fragment change (real embedded Postgres). */
describe('fragment outbox events', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kw-fragments-outbox-'));
  let database: Database;
  let db: DataDb;
  let handlers: FragmentsHandlers;
  let repository: FragmentsRepository;
  let typeId: string;

  const events = (fragmentId: string) =>
    db.outboxEvent.findMany({ where: { aggregateId: fragmentId }, orderBy: { createdAt: 'asc' } });
  const create = (fields: Record<string, unknown> = {}) =>
    handlers.create(
      {
        workspaceId: WS,
        fragmentTypeId: typeId,
        title: 't',
        content: 'c',
        tagsSupplied: false,
        tags: [],
        enhanceTags: false,
        createdVia: 'api',
        ...fields,
      } as never,
      context,
    );

  beforeAll(async () => {
    database = await openDatabase({ dataDir: dir });
    await migrate(database.pool, 'data');
    db = createPrismaClient('data', database.pool);
    const types = new FragmentTypesRepository(db, database);
    // No PLANS: no plan limits, so neither ever calls another component.
    repository = new FragmentsRepository(db, database);
    handlers = new FragmentsHandlers(
      repository,
      types,
      gate,
      loadConfig({}),
      new AccountLimits(null as never, undefined),
      new LimitNotices(null as never),
    );
    await ensureDefaultTypes(types, WS);
    typeId = (await db.fragmentType.findFirstOrThrow({ where: { workspaceId: WS, key: 'note' } })).id;
  }, 60_000);
  afterAll(async () => {
    await db?.$disconnect();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records fragment.created with the steps enrichment must run', async () => {
    const plain = (await create()).fragment!;
    const [event] = await events(plain.id!);
    expect(event).toMatchObject({
      aggregateType: 'fragment',
      aggregateId: plain.id,
      eventType: 'fragment.created',
      headers: { requestId: 'req-1' },
      publishedAt: null,
    });
    expect(event!.payload).toEqual({
      fragmentId: plain.id,
      workspaceId: WS,
      version: 1,
      needs: ['summary', 'tags', 'embedding', 'graph'],
      occurredAt: expect.any(String),
      // The metadata snapshot webhook payloads carry: never the content.
      fragment: expect.objectContaining({
        id: plain.id,
        title: plain.title,
        version: 1,
        status: 'processing',
        archivedAt: null,
      }),
    });
    expect((event!.payload as any).fragment.content).toBeUndefined();

    const supplied = (await create({ summary: 'mine', tagsSupplied: true, tags: ['a'] })).fragment!;
    expect(((await events(supplied.id!))[0]!.payload as any).needs).toEqual(['embedding', 'graph']);
    const enhanced = (await create({ tagsSupplied: true, tags: ['a'], enhanceTags: true })).fragment!;
    expect(((await events(enhanced.id!))[0]!.payload as any).needs).toEqual(['summary', 'tags', 'embedding', 'graph']);
  });

  it('writes neither fragment nor event when the key is taken', async () => {
    const first = (await create({ key: 'k1' })).fragment!;
    const before = await db.outboxEvent.count();
    await expect(create({ key: 'k1' })).rejects.toMatchObject({
      status: 409,
      code: 'KEY_EXISTS',
      details: { existingId: first.id },
    });
    expect(await db.outboxEvent.count()).toBe(before);
    expect(await db.fragment.count({ where: { key: 'k1' } })).toBe(1);
  });

  it('records fragment.updated (with steps only when the text changed) and fragment.deleted on archive and deletion', async () => {
    const f = (await create()).fragment!;
    await handlers.update(
      { fragmentId: f.id, content: 'new', tagsSupplied: false, tags: [], operations: [], expectedVersion: 1 } as never,
      context,
    );
    await handlers.update(
      { fragmentId: f.id, tagsSupplied: true, tags: ['x'], operations: [], expectedVersion: 0 } as never,
      context,
    );
    await expect(
      handlers.update(
        {
          fragmentId: f.id,
          title: 'stale',
          tagsSupplied: false,
          tags: [],
          operations: [],
          expectedVersion: 1,
        } as never,
        context,
      ),
    ).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      details: { currentVersion: 3 },
    });
    await handlers.delete({ fragmentId: f.id, permanent: false } as never, context);
    await handlers.delete({ fragmentId: f.id, permanent: true } as never, context);
    const all = await events(f.id!);
    expect(all.map((e) => [e.eventType, (e.payload as any).version, (e.payload as any).needs])).toEqual([
      ['fragment.created', 1, ['summary', 'tags', 'embedding', 'graph']],
      ['fragment.updated', 2, ['summary', 'tags', 'embedding', 'graph']],
      ['fragment.updated', 3, []],
      ['fragment.deleted', 4, []],
      ['fragment.deleted', 4, []],
    ]);
    expect(await db.fragment.count({ where: { id: f.id! } })).toBe(0);
  });

  it('answers 404 with no event when a permanent delete lands between the read and the write of an update, archive or delete', async () => {
    // The handler reads the fragment, then a concurrent permanent delete removes it before the write.
    const deleteAfterRead = () => {
      const read = repository.findById.bind(repository);
      return vi.spyOn(repository, 'findById').mockImplementationOnce(async (id) => {
        const row = await read(id);
        await db.fragment.delete({ where: { id } });
        return row;
      });
    };
    const attempts = [
      (id: string) =>
        handlers.update(
          { fragmentId: id, title: 'x', tagsSupplied: false, tags: [], operations: [], expectedVersion: 0 } as never,
          context,
        ),
      (id: string) => handlers.delete({ fragmentId: id, permanent: false } as never, context),
      (id: string) => handlers.delete({ fragmentId: id, permanent: true } as never, context),
    ];
    for (const attempt of attempts) {
      const f = (await create()).fragment!;
      const spy = deleteAfterRead();
      await expect(attempt(f.id!)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
      spy.mockRestore();
      expect((await events(f.id!)).map((e) => e.eventType)).toEqual(['fragment.created']);
    }
  });

  it('archives once when two archive requests race: the second answers the archived row with no second event', async () => {
    const f = (await create()).fragment!;
    const read = repository.findById.bind(repository);
    // Both requests read the fragment unarchived before either writes.
    const stale = await read(f.id!);
    const spy = vi.spyOn(repository, 'findById').mockResolvedValue(stale);
    const [first, second] = await Promise.all([
      handlers.delete({ fragmentId: f.id, permanent: false } as never, context),
      handlers.delete({ fragmentId: f.id, permanent: false } as never, context),
    ]);
    spy.mockRestore();
    expect(first.fragment).toEqual(second.fragment);
    expect(first.fragment).toMatchObject({ version: 2 });
    expect(first.fragment!.archivedAt).toBeTruthy();
    expect((await events(f.id!)).map((e) => e.eventType)).toEqual(['fragment.created', 'fragment.deleted']);
  });
});
