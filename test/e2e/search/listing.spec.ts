import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_NOT_FOUND } from '../workspaces/workspaces-api.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';

/** Structured listing (POST /api/fragments/list) over real HTTP: the filter language, paging, isolation. */
describe('structured listing', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let outsider: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;
  let other: Awaited<ReturnType<typeof p.workspace>>;
  const ids: Record<string, string> = {};

  const list = (body: Record<string, unknown>, auth = owner.auth) =>
    p.api.call(auth, 'POST', '/api/fragments/list', { workspaceId: ws.id, ...body });
  const titles = async (filter: string, extra: Record<string, unknown> = {}) => {
    const res = await list({ filter, select: ['title'], orderBy: [{ field: 'title' }], limit: 500, ...extra });
    expect(res.status, res.text).toBe(200);
    return res.body.items.map((i: any) => i.title);
  };

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    outsider = await p.person();
    ws = await p.workspace(owner);
    other = await p.workspace(owner);
    const decision = ws.types.find((t: any) => t.key !== 'note')!;
    const make = async (workspace: typeof ws, title: string, fields: Record<string, unknown> = {}) => {
      const res = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
        workspaceId: workspace.id,
        fragmentTypeId: workspace.noteTypeId,
        title,
        content: `Body of ${title}`,
        tags: [],
        ...fields,
      });
      expect(res.status, res.text).toBe(201);
      ids[title] = res.body.fragment.id;
    };
    await make(ws, 'Alpha', { tags: ['ai', 'ml'], summary: 'About models' });
    await make(ws, 'Beta draft', { tags: ['ai'] });
    await make(ws, 'Gamma', { tags: ['db'], content: "It's Postgres 100% of the time" });
    await make(ws, 'Delta', { tags: ['AI'], fragmentTypeId: decision.id, key: 'delta-key' });
    await make(ws, 'Archived ai', { tags: ['ai'] });
    await make(other, 'Other workspace ai', { tags: ['ai'] });
    for (let i = 0; i < 7; i++) await make(ws, `Page ${i}`, { tags: ['page'] });
    expect((await p.api.call(owner.auth, 'DELETE', `/api/memory-fragments/${ids['Archived ai']}`)).status).toBe(200);
    // Enrichment turns `processing` into `published` and touches updatedAt: a page walk ordered by
    // either would see rows move between its pages, so the tests start once it has finished.
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 250))) {
      const res = await list({ filter: "status = 'processing'", select: ['id'], limit: 500 });
      if (res.body.totalCount === 0) break;
      if (Date.now() > deadline) throw new Error(`enrichment did not finish: ${res.text}`);
    }
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  });

  it('filters by type, tags (case-insensitive), text match and negation', async () => {
    expect(
      await titles("type = 'note' and tags has 'ai' and createdAt >= '2000-01-01' and not title ~ 'draft'"),
    ).toEqual(['Alpha']);
    expect(await titles("tags has 'ai'")).toEqual(['Alpha', 'Beta draft', 'Delta']);
    expect(await titles("tags has 'ai' and (type != 'note' or title ~ 'DRAFT')")).toEqual(['Beta draft', 'Delta']);
    expect(await titles("text ~ 'models' or content ~ '100%'")).toEqual(['Alpha', 'Gamma']);
    expect(await titles("content ~ 'it''s'")).toEqual(['Gamma']);
    expect(await titles('not key is null')).toEqual(['Delta']);
    expect(await titles("summary = 'About models'")).toEqual(['Alpha']);
    expect(await titles(`id = '${ids.Gamma}' or version > 1`)).toEqual(['Gamma']);
  });

  it('takes date ranges: a bare date is the whole UTC day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const all = await titles('');
    expect(all).toHaveLength(11);
    expect(await titles(`createdAt = '${today}'`)).toEqual(all);
    expect(await titles(`createdAt > '${today}'`)).toEqual([]);
    expect(await titles(`createdAt >= '${today}' and updatedAt <= '${today}'`)).toEqual(all);
    expect(await titles(`createdAt < '${new Date(Date.now() + 60_000).toISOString()}' and tags has 'db'`)).toEqual([
      'Gamma',
    ]);
  });

  it('excludes archived fragments unless asked, and never shows another workspace', async () => {
    expect(await titles("title ~ 'ai'")).toEqual([]);
    expect(await titles("title ~ 'ai'", { includeArchived: true })).toEqual(['Archived ai']);
    expect(await titles('archivedAt is not null', { includeArchived: true })).toEqual(['Archived ai']);
    const res = await list({ workspaceId: other.id, filter: "tags has 'ai'", select: ['title'] });
    expect(res.body.items).toEqual([{ title: 'Other workspace ai' }]);
  });

  it('answers with the selected fields only, and the default selection', async () => {
    const res = await list({ filter: "title = 'Delta'", select: ['id', 'key', 'tags', 'type'] });
    expect(res.body).toEqual({
      success: true,
      items: [{ id: ids.Delta, key: 'delta-key', tags: ['AI'], type: expect.any(String) }],
      count: 1,
      totalCount: 1,
      limit: 50,
      offset: 0,
    });
    const plain = await list({ filter: "title = 'Alpha'" });
    expect(Object.keys(plain.body.items[0]).sort()).toEqual([
      'createdAt',
      'id',
      'status',
      'tags',
      'title',
      'type',
      'updatedAt',
    ]);
    expect(plain.body.items[0].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // Each column type as JSON: int4 a number, an absent timestamp null, text[] an array.
    const typed = await list({ filter: "title = 'Alpha'", select: ['version', 'archivedAt', 'summary', 'tags'] });
    expect(typed.body.items).toEqual([{ version: 1, archivedAt: null, summary: 'About models', tags: ['ai', 'ml'] }]);
  });

  it('pages stably and completely, whatever the order', async () => {
    for (const orderBy of [
      [],
      [{ field: 'title', direction: 'desc' }],
      [{ field: 'status' }],
      [
        { field: 'key', direction: 'desc' },
        { field: 'createdAt', direction: 'desc' },
      ],
    ]) {
      const seen: string[] = [];
      let offset = 0;
      let totalCount = Infinity;
      while (offset < totalCount) {
        const res = await list({ orderBy, limit: 3, offset, select: ['id'] });
        expect(res.status, res.text).toBe(200);
        totalCount = res.body.totalCount;
        seen.push(...res.body.items.map((i: any) => i.id));
        offset += res.body.count;
        if (res.body.count === 0) break;
      }
      expect(seen).toHaveLength(11);
      expect(new Set(seen).size).toBe(11);
    }
  });

  it.each([
    ['title = ', 8, 'expected a value'],
    ["colour = 'red'", 0, "unknown field 'colour'"],
    ["title > 'x'", 6, "operator '>' does not apply to 'title'"],
    ["createdAt >= 'yesterday'", 13, "'createdAt' takes a date"],
    ["createdAt >= '2026-02-30'", 13, "'createdAt' takes a date"],
    ["title = 'open", 8, 'unterminated string'],
    ["title = 'a' and", 15, 'expected a field name'],
    ["(title = 'a'", 12, "expected ')'"],
    ["title = 'a')", 11, "unbalanced ')'"],
    ["title = 'a' or or", 15, 'expected a field name'],
    ["title = 'a'; drop table fragments", 11, "unexpected character ';'"],
    ["id = 'not-a-uuid'", 5, "'id' takes a UUID"],
    ['version = 1.5', 10, 'takes a whole number'],
    ["tags = 'ai'", 5, "operator '=' does not apply to 'tags'"],
    ['title is null', 6, "'title' is never null"],
    ["constructor = 'x'", 0, "unknown field 'constructor'"],
    ["text = 'x'", 5, "operator '=' does not apply to 'text'"],
    // Positions count characters: each emoji is one, not two UTF-16 units.
    ["title ~ '\u{1F600}\u{1F600}' and foo = 'x'", 17, "unknown field 'foo'"],
  ])('refuses %j with 400 INVALID_FILTER at %i', async (filter, position, reason) => {
    const res = await list({ filter });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'INVALID_FILTER',
      position,
      error: expect.stringContaining('Invalid filter'),
      param: 'filter',
    });
    expect(res.body.reason).toContain(reason);
  });

  it('limits length and nesting', async () => {
    const long = await list({ filter: `title ~ '${'x'.repeat(2000)}'` });
    expect(long.body).toMatchObject({ code: 'INVALID_FILTER', position: 2000 });
    // 1,010 characters of which 1,000 are emoji (2,010 UTF-16 units): within the limit.
    const astral = await list({ filter: `title = '${'\u{1F600}'.repeat(1000)}'` });
    expect(astral.status, astral.text).toBe(200);
    const deep = (n: number) => `${'('.repeat(n)}title = 'a'${')'.repeat(n)}`;
    expect((await list({ filter: deep(16) })).status).toBe(200);
    expect((await list({ filter: deep(17) })).body).toMatchObject({
      code: 'INVALID_FILTER',
      position: 16,
      reason: 'nesting deeper than 16 levels',
    });
    expect((await list({ filter: `${'not '.repeat(17)}title = 'a'` })).body).toMatchObject({
      code: 'INVALID_FILTER',
      position: 64,
    });
  });

  it('refuses unknown select and order fields and unknown body fields with 400 VALIDATION_FAILED', async () => {
    for (const body of [
      { select: ['password'] },
      { orderBy: [{ field: 'content' }] },
      { orderBy: [{ field: 'title', direction: 'sideways' }] },
      { sql: 'x' },
      { limit: 501 },
    ]) {
      const res = await list(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('answers a non-member exactly like a missing workspace', async () => {
    const res = await list({ filter: '' }, outsider.auth);
    expect(res.status).toBe(404);
    expect(res.text).toBe(WORKSPACE_NOT_FOUND);
  });

  it('answers hostile expressions over HTTP with 200 or 400, never 500 nor SQL text', async () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.constantFrom(
        "'; DROP TABLE data.fragments; --",
        "title = 'x' OR 1=1 --",
        "title = ''' or ''1''=''1'",
        'title ~ $$x$$',
        "title = E'\\x00'",
        'title = \u0000',
        "tags has 'a\u0000b'",
      ),
      fc
        .tuple(
          fc.constantFrom('title', 'tags', 'createdAt', 'id', 'version', 'text', 'summary'),
          fc.constantFrom('=', '!=', '~', '<', 'has', 'is null'),
          fc.string({ maxLength: 20 }),
        )
        .map(([f, o, v]) => `${f} ${o} '${v.replace(/'/g, "''")}'`),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (filter) => {
        const res = await list({ filter });
        expect([200, 400]).toContain(res.status);
        expect(res.text).not.toMatch(/syntax error|relation "|column "|prisma|invalid input syntax|sqlstate/i);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
