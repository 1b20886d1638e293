import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFragmentsPlatform, type Person } from './fragments-fixture.js';

/**
 * POST /api/memory-fragments/bulk over real HTTP: every item validated and written like a single
 * create (or updated by its key with upsert), an outcome per item in order, a bad item failing
 * alone, the request authorized and rate-limited once as a whole, and enrichment as usual.
 */
describe('bulk fragment writes', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let ws: { id: string; noteTypeId: string };

  const bulk = (auth: string, body: unknown) => p.api.call(auth, 'POST', '/api/memory-fragments/bulk', body);
  const note = (i: number, extra: Record<string, unknown> = {}) => ({
    fragmentTypeId: ws.noteTypeId,
    title: `Note ${i}`,
    content: `Content of note ${i}`,
    key: `note-${i}`,
    ...extra,
  });

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    ws = await p.workspace(owner);
  }, 90_000);
  afterAll(async () => p?.stop());

  it('creates each valid item and fails each bad one alone, in order', async () => {
    const answer = await bulk(owner.auth, {
      workspaceId: ws.id,
      items: [
        note(1, { tags: ['imported'], summary: 'Given' }),
        note(2, { title: '   ' }),
        note(3, { fragmentTypeId: '00000000-0000-4000-8000-000000000000' }),
        note(4, { color: 'red' }),
        note(5),
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ success: true, created: 2, updated: 0, unchanged: 0, failed: 3 });
    const results = answer.body.results;
    expect(results.map((r: any) => [r.index, r.status, r.error?.code, r.error?.param])).toEqual([
      [0, 'created', undefined, undefined],
      [1, 'failed', 'VALIDATION_FAILED', 'title'],
      [2, 'failed', 'INVALID_FRAGMENT_TYPE', results[2].error?.param],
      [3, 'failed', 'VALIDATION_FAILED', 'color'],
      [4, 'created', undefined, undefined],
    ]);
    expect(results[2].error.status).toBe(400);
    // What was created is what a single create makes: createdVia import, the given fields.
    const first = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${results[0].id}`, undefined, 200);
    expect(first.fragment).toMatchObject({
      title: 'Note 1',
      content: 'Content of note 1',
      tags: ['imported'],
      summary: 'Given',
      key: 'note-1',
      createdVia: 'import',
      workspaceId: ws.id,
    });
    const listed = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200);
    expect(listed.totalCount).toBe(2);
    // And it is enriched like one: the fragment without a summary gets one.
    await expect
      .poll(
        async () =>
          (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${results[4].id}`, undefined, 200)).fragment,
        { timeout: 30_000 },
      )
      .toMatchObject({ status: 'published', summary: expect.any(String) });
  }, 60_000);

  it('refuses a taken key without upsert, and with upsert updates, leaves or creates by key', async () => {
    const taken = await bulk(owner.auth, { workspaceId: ws.id, items: [note(1)] });
    const existing = (
      await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}&key=note-1`, undefined, 200)
    ).items[0];
    expect(taken.body.results).toEqual([
      {
        index: 0,
        status: 'failed',
        error: {
          status: 409,
          code: 'KEY_EXISTS',
          message: 'A fragment with that key exists in the workspace',
          param: 'key',
          existingId: existing.id,
        },
      },
    ]);

    const upserted = await bulk(owner.auth, {
      workspaceId: ws.id,
      upsert: true,
      items: [
        note(1, { tags: ['imported'], summary: 'Given' }),
        note(5, { content: 'Content of note 5, revised' }),
        note(6),
      ],
    });
    expect(upserted.status, upserted.text).toBe(200);
    expect(upserted.body).toMatchObject({ created: 1, updated: 1, unchanged: 1, failed: 0 });
    expect(upserted.body.results.map((r: any) => r.status)).toEqual(['unchanged', 'updated', 'created']);
    expect(upserted.body.results[0].id).toBe(existing.id);
    const revised = await p.api.ok(
      owner.auth,
      'GET',
      `/api/memory-fragments/${upserted.body.results[1].id}`,
      undefined,
      200,
    );
    expect(revised.fragment).toMatchObject({ content: 'Content of note 5, revised', version: 2 });

    // The same request again creates nothing and changes nothing.
    const again = await bulk(owner.auth, {
      workspaceId: ws.id,
      upsert: true,
      items: [
        note(1, { tags: ['imported'], summary: 'Given' }),
        note(5, { content: 'Content of note 5, revised' }),
        note(6),
      ],
    });
    expect(again.body).toMatchObject({ created: 0, updated: 0, unchanged: 3, failed: 0 });
    const listed = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200);
    expect(listed.totalCount).toBe(3);
  }, 60_000);

  it('leaves an item unchanged on a second import when enrichment added to its tags', async () => {
    // A workspace of its own: the other tests count the fragments of theirs.
    const garden = await p.workspace(owner);
    const item = {
      fragmentTypeId: garden.noteTypeId,
      title: 'Compost heap',
      content:
        'Turn the compost heap every week and keep it as moist as a wrung sponge. Grass cuttings bring ' +
        'nitrogen, dry leaves bring carbon; the heap warms up when both are there.',
      key: 'compost',
      tags: ['garden'],
      enhanceTags: true,
    };
    const first = await bulk(owner.auth, { workspaceId: garden.id, upsert: true, items: [item] });
    expect(first.body.results.map((r: any) => r.status)).toEqual(['created']);
    const id = first.body.results[0].id;
    const read = async () =>
      (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${id}`, undefined, 200)).fragment;
    await expect.poll(read, { timeout: 30_000 }).toMatchObject({ status: 'published' });
    const enriched = await read();
    // Enrichment kept the given tag and added its own.
    expect(enriched.tags).toContain('garden');
    expect(enriched.tags.length).toBeGreaterThan(1);

    const again = await bulk(owner.auth, { workspaceId: garden.id, upsert: true, items: [item] });
    expect(again.body.results.map((r: any) => r.status)).toEqual(['unchanged']);
    const after = await read();
    expect([after.version, after.tags]).toEqual([enriched.version, enriched.tags]);
  }, 60_000);

  it('answers as if the items were written one after another: order, repeated keys, a full request', async () => {
    const shelf = await p.workspace(owner);
    const list = async () =>
      (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${shelf.id}&limit=500`, undefined, 200))
        .items;
    const item = (i: number, extra: Record<string, unknown> = {}) => ({
      ...note(i, { summary: 'given', tags: ['t'] }),
      fragmentTypeId: shelf.noteTypeId,
      ...extra,
    });
    // 500 items, written together: the default listing (created_at, then id) keeps their order.
    const full = await bulk(owner.auth, {
      workspaceId: shelf.id,
      items: Array.from({ length: 500 }, (_, i) => item(i)),
    });
    expect(full.status, full.text).toBe(200);
    expect(full.body).toMatchObject({ created: 500, failed: 0 });
    const listed = await list();
    expect(listed.map((f: any) => f.title)).toEqual(Array.from({ length: 500 }, (_, i) => `Note ${i}`));
    expect(listed.map((f: any) => f.id)).toEqual(full.body.results.map((r: any) => r.id));

    // A key repeated in one request: without upsert the second is refused with the first's id.
    const twice = await bulk(owner.auth, {
      workspaceId: shelf.id,
      items: [item(1000), item(1001), item(1000, { title: 'Again' })],
    });
    const [first, , second] = twice.body.results;
    expect(twice.body.results.map((r: any) => r.status)).toEqual(['created', 'created', 'failed']);
    expect(second.error).toMatchObject({ status: 409, code: 'KEY_EXISTS', existingId: first.id });
    // With upsert the second updates what the first created; a third repeats the second: unchanged.
    const upserted = await bulk(owner.auth, {
      workspaceId: shelf.id,
      upsert: true,
      items: [item(2000), item(2000, { content: 'Revised' }), item(2000, { content: 'Revised' }), item(2001)],
    });
    expect(upserted.body.results.map((r: any) => r.status)).toEqual(['created', 'updated', 'unchanged', 'created']);
    expect(new Set(upserted.body.results.slice(0, 3).map((r: any) => r.id)).size).toBe(1);
    const revised = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${first.id}`, undefined, 200);
    expect(revised.fragment.title).toBe('Note 1000');
    const kept = await p.api.ok(
      owner.auth,
      'GET',
      `/api/memory-fragments/${upserted.body.results[0].id}`,
      undefined,
      200,
    );
    expect(kept.fragment).toMatchObject({ content: 'Revised', version: 2 });
    const counted = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${shelf.id}`, undefined, 200);
    expect(counted.totalCount).toBe(504);
  }, 60_000);

  it('upserts many held keys at once with the outcomes of a one-by-one write, a key named twice included', async () => {
    const shelf = await p.workspace(owner);
    const item = (i: number, extra: Record<string, unknown> = {}) => ({
      ...note(i, { summary: 'given', tags: ['t'] }),
      fragmentTypeId: shelf.noteTypeId,
      ...extra,
    });
    const seeded = await bulk(owner.auth, {
      workspaceId: shelf.id,
      items: Array.from({ length: 40 }, (_, i) => item(i)),
    });
    expect(seeded.body).toMatchObject({ created: 40 });
    // Keys 0-39 are held: even ones change, odd ones are the same; key 5 is named twice (changed,
    // then changed again); 40 is new; an invalid item in the middle fails alone.
    const items = [
      ...Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? item(i, { title: `Changed ${i}` }) : item(i))),
      item(5, { title: 'Five again' }),
      item(40),
      item(41, { title: '' }),
    ];
    items[5] = item(5, { title: 'Five' });
    const answer = await bulk(owner.auth, { workspaceId: shelf.id, upsert: true, items });
    expect(answer.status, answer.text).toBe(200);
    const statuses = answer.body.results.map((r: any) => r.status);
    expect(statuses.slice(0, 40)).toEqual(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 || i === 5 ? 'updated' : 'unchanged')),
    );
    expect(statuses.slice(40)).toEqual(['updated', 'created', 'failed']);
    expect(answer.body).toMatchObject({ created: 1, updated: 22, unchanged: 19, failed: 1 });
    const results = answer.body.results;
    expect(results.slice(0, 40).map((r: any) => r.id)).toEqual(seeded.body.results.map((r: any) => r.id));
    const five = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${results[5].id}`, undefined, 200);
    expect(five.fragment).toMatchObject({ title: 'Five again', version: 3 });
    const two = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${results[2].id}`, undefined, 200);
    expect(two.fragment).toMatchObject({ title: 'Changed 2', version: 2 });
  }, 60_000);

  it('creates each key once when two requests race for the same keys', async () => {
    const race = await p.workspace(owner);
    const items = Array.from({ length: 150 }, (_, i) => ({
      ...note(i, { summary: 'given', tags: ['t'] }),
      fragmentTypeId: race.noteTypeId,
    }));
    const answers = await Promise.all([1, 2].map(() => bulk(owner.auth, { workspaceId: race.id, items })));
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const listed = await p.api.ok(
      owner.auth,
      'GET',
      `/api/memory-fragments?workspaceId=${race.id}&limit=500`,
      undefined,
      200,
    );
    expect(listed.totalCount).toBe(150);
    const holder = new Map(listed.items.map((f: any) => [f.key, f.id]));
    // Each item is created by exactly one request; the other names the holder.
    for (let i = 0; i < items.length; i++) {
      const outcomes = answers.map((a) => a.body.results[i]);
      expect(outcomes.map((o: any) => o.status).sort(), `item ${i}`).toEqual(['created', 'failed']);
      const created = outcomes.find((o: any) => o.status === 'created');
      const refused = outcomes.find((o: any) => o.status === 'failed');
      expect(created.id).toBe(holder.get(`note-${i}`));
      expect(refused.error).toMatchObject({ code: 'KEY_EXISTS', existingId: created.id });
    }
  }, 60_000);

  it('refuses the whole request for a workspace the caller may not write, or too many items', async () => {
    const stranger = await p.person();
    const hidden = await bulk(stranger.auth, { workspaceId: ws.id, items: [note(9)] });
    expect([hidden.status, hidden.body.code]).toEqual([404, 'NOT_FOUND']);
    // Even when every item is bad: the workspace is still authorized first.
    const allBad = await bulk(stranger.auth, { workspaceId: ws.id, items: [{ title: 1 }] });
    expect(allBad.status).toBe(404);
    const tooMany = await bulk(owner.auth, {
      workspaceId: ws.id,
      items: Array.from({ length: 501 }, (_, i) => note(100 + i)),
    });
    expect([tooMany.status, tooMany.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(tooMany.body.error).toMatch(/^items: /);
    expect((await bulk(owner.auth, { workspaceId: ws.id, items: [] })).status).toBe(400);
    expect((await bulk(owner.auth, { workspaceId: ws.id, items: ['x'] })).status).toBe(400);
    const listed = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200);
    expect(listed.totalCount).toBe(3);
  }, 60_000);
});

describe('bulk fragment writes and rate limits', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;

  beforeAll(async () => {
    p = await startFragmentsPlatform({ RATE_LIMIT_PER_CREDENTIAL: '20' });
  }, 90_000);
  afterAll(async () => p?.stop());

  it('counts one request, whatever the number of fragments', async () => {
    const owner = await p.person();
    const ws = await p.workspace(owner);
    const res = await fetch(`${p.platform.url}/api/memory-fragments/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.auth}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspaceId: ws.id,
        items: Array.from({ length: 200 }, (_, i) => ({
          fragmentTypeId: ws.noteTypeId,
          title: `Bulk ${i}`,
          content: `Item ${i}`,
          summary: 's',
          tags: ['t'],
        })),
      }),
    });
    const body = (await res.json()) as { created: number };
    expect(res.status).toBe(200);
    expect(body.created).toBe(200);
    const remaining = Number(res.headers.get('ratelimit-remaining'));
    const limit = Number(res.headers.get('ratelimit-limit'));
    // The workspace's creation and type listing, then this request: a handful of hits, not 200.
    expect(limit).toBe(20);
    expect(remaining).toBeGreaterThanOrEqual(limit - 5);
  }, 60_000);
});
