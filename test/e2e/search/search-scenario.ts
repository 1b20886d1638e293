import { expect, it } from 'vitest';
import { SEARCH_QUERY_MAX } from '@kw/contracts';
import { untilPublished } from '../enrichment/enrichment-fixture.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { WORKSPACE_NOT_FOUND } from '../workspaces/workspaces-api.js';

type Platform = Awaited<ReturnType<typeof startFragmentsPlatform>>;
type Workspace = Awaited<ReturnType<Platform['workspace']>>;

/** The test corpus: each query below has one known best answer. */
const CORPUS = [
  {
    title: 'Postgres index tuning',
    tags: ['database', 'performance'],
    content: 'How we tuned B-tree and GIN indexes in PostgreSQL so that slow queries became fast.',
  },
  {
    title: 'Kubernetes cluster upgrades',
    tags: ['ops'],
    content: 'Steps to upgrade Kubernetes clusters without downtime: drain nodes, then roll the control plane.',
  },
  {
    title: 'Quarterly plan',
    tags: ['marketing'],
    content: 'Campaign budget, social media calendar and launch events for the next quarter.',
  },
  {
    title: 'Coffee brewing guide',
    tags: ['kitchen'],
    content: 'Grind size, water temperature and pour-over technique for better coffee every morning.',
  },
  {
    title: 'Team onboarding checklist',
    tags: ['hr'],
    content: 'Laptops, accounts and a buddy for every new hire; the wiki explains our postgres setup.',
  },
];
const PAGED = 12;

/**
 * Workspace search over real HTTP, against whichever platform `start` runs (embedded PGlite
 * with pgvector, or PostgreSQL where semantic search may fall back to exact cosine).
 */
export function searchScenario(start: () => Promise<Platform>, vectorIndexes: string[]): void {
  let p: Platform;
  let owner: Person;
  let stranger: Person;
  let ws: Workspace;
  let second: Workspace;
  let foreign: Workspace;
  const ids: Record<string, string> = {};

  const get = (auth: Person['auth'], path: string) => p.api.call(auth, 'GET', path);
  const search = async (params: Record<string, string | number>, auth = owner.auth, path = '/api/search') => {
    const qs = new URLSearchParams(
      Object.entries({ workspaceId: ws.id, ...params }).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const res = await get(auth, `${path}?${qs}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const make = async (
    workspace: Workspace,
    fields: { title: string; content: string; tags: string[] },
    auth = owner.auth,
  ) => {
    const res = await p.api.call(auth, 'POST', '/api/memory-fragments', {
      workspaceId: workspace.id,
      fragmentTypeId: workspace.noteTypeId,
      ...fields,
    });
    expect(res.status, res.text).toBe(201);
    ids[`${workspace.id}:${fields.title}`] = res.body.fragment.id;
    return res.body.fragment.id as string;
  };
  const idOf = (title: string, workspace = ws) => ids[`${workspace.id}:${title}`];

  it('starts, loads the corpus and finds a fragment by keyword as soon as its create returns', async () => {
    p = await start();
    const selected = p.platform.logs.find((l: any) => l.msg === 'search vector index selected') as any;
    expect(vectorIndexes).toContain(selected?.vectorIndex);
    // pgvector was there when the data plane migrated: chunks carry their embedding as a vector.
    if (selected?.vectorIndex === 'pgvector') expect(selected.storedVectors).toBe(true);
    owner = await p.person();
    stranger = await p.person();
    ws = await p.workspace(owner);
    second = await p.workspace(owner);
    foreign = await p.workspace(stranger);
    const fresh = await make(ws, { title: 'Zeppelin hangar notes', tags: ['airship'], content: 'Helium storage.' });
    const found = await search({ q: 'zeppelin', mode: 'keyword' });
    expect(found.results.map((r: any) => r.fragmentId)).toEqual([fresh]);
    for (const doc of CORPUS) await make(ws, doc);
    // Overlapping content elsewhere: another tenant's workspace and the owner's second one.
    for (const doc of CORPUS) await make(foreign, { ...doc, title: `${doc.title} (foreign)` }, stranger.auth);
    await make(second, {
      title: 'Postgres replication notes',
      tags: ['database'],
      content: 'Streaming replication of postgres.',
    });
    for (let i = 0; i < PAGED; i++)
      await make(ws, {
        title: `Paging item ${String(i).padStart(2, '0')}`,
        tags: ['paging'],
        content: `Pagination test number ${i}.`,
      });
    const archived = await make(ws, {
      title: 'Archived postgres memo',
      tags: ['database'],
      content: 'Old postgres index notes.',
    });
    expect((await p.api.call(owner.auth, 'DELETE', `/api/memory-fragments/${archived}`)).status).toBe(200);
    // Semantic retrieval needs the embeddings: wait for enrichment.
    for (const id of Object.values(ids)) {
      if (id === archived) continue;
      const owned = Object.entries(ids)
        .find(([, v]) => v === id)![0]
        .startsWith(foreign.id)
        ? stranger.auth
        : owner.auth;
      await untilPublished(() => p.api.call(owned, 'GET', `/api/memory-fragments/${id}`), 60_000);
    }
  }, 240_000);

  it('keyword: title > tags > summary > content, websearch syntax, snippets highlighted', async () => {
    const body = await search({ q: 'postgres', mode: 'keyword' });
    expect(body.results[0].fragmentId).toBe(idOf('Postgres index tuning'));
    expect(body.results.map((r: any) => r.title)).toEqual(['Postgres index tuning', 'Team onboarding checklist']);
    expect(body.results[1].snippet).toContain('<mark>postgres</mark>');
    expect(body.results[0]).toMatchObject({
      type: 'note',
      tags: ['database', 'performance'],
      matchedBy: ['keyword'],
      workspaceId: ws.id,
    });
    expect((await search({ q: 'marketing', mode: 'keyword' })).results[0].title).toBe('Quarterly plan');
    expect((await search({ q: '"control plane" -coffee', mode: 'keyword' })).results.map((r: any) => r.title)).toEqual([
      'Kubernetes cluster upgrades',
    ]);
    expect((await search({ q: 'postgres' }, owner.auth, '/api/search/simple')).results[0].title).toBe(
      'Postgres index tuning',
    );
  });

  it('keyword: a sentence finds the fragments holding its words, rare words first (BM25)', async () => {
    const asked = await search({ q: 'How should I tune a Postgres index for better performance?', mode: 'keyword' });
    expect(asked.results[0].title).toBe('Postgres index tuning');
    expect(asked.results.map((r: any) => r.title)).toContain('Team onboarding checklist');
    expect(asked.results[0].snippet).toContain('<mark>');
    // "test" is in every paging fragment, "coffee" in one: the rare word decides the order,
    // although the paging fragments are shorter and hold "test" as often.
    const rare = await search({ q: 'a test about coffee', mode: 'keyword', limit: 100 });
    expect(rare.results[0].title).toBe('Coffee brewing guide');
    expect(rare.results.length).toBeGreaterThan(1);
    expect(rare.results.every((r: any) => r.score > 0)).toBe(true);
    // Syntax keeps the precise reading: every unquoted word is required.
    expect(
      (await search({ q: 'postgres OR marketing', mode: 'keyword' })).results.map((r: any) => r.title).sort(),
    ).toEqual(['Postgres index tuning', 'Quarterly plan', 'Team onboarding checklist']);
    // A query of stop words only has nothing to rank by.
    expect((await search({ q: 'what is the', mode: 'keyword' })).results).toEqual([]);
  });

  it('keyword: syntax that matches nothing is read as plain words, its exclusions still honoured', async () => {
    // No fragment holds the phrase "control plane" and the word marketing: rather than nothing,
    // the fragments holding any of the words, ranked.
    const relaxed = await search({ q: '"control plane" marketing', mode: 'keyword' });
    expect(relaxed.results.map((r: any) => r.title).sort()).toEqual(['Kubernetes cluster upgrades', 'Quarterly plan']);
    const excluding = await search({ q: '"control plane" marketing -kubernetes', mode: 'keyword' });
    expect(excluding.results.map((r: any) => r.title)).toEqual(['Quarterly plan']);
    const phrase = await search({ q: 'marketing -"cluster upgrades" "control plane"', mode: 'keyword' });
    expect(phrase.results.map((r: any) => r.title)).toEqual(['Quarterly plan']);
    // Syntax that matches keeps its precise reading (every word, the phrase in order).
    expect(
      (await search({ q: '"control plane" kubernetes', mode: 'keyword' })).results.map((r: any) => r.title),
    ).toEqual(['Kubernetes cluster upgrades']);
  });

  it('keyword: a pasted passage is prose, whatever quotes, dashes or ORs it holds; 8,000 characters at most', async () => {
    // An abstract-like passage: quotes, an odds ratio "OR", a "-word". Read as search syntax it
    // would require all of its words and find nothing.
    const passage =
      'We "tuned" slow queries in PostgreSQL (OR 2.1 for latency) by rebuilding the -fragmented ' +
      'B-tree index and adding a GIN index; the team measured every step before and after the change. ';
    const found = await search({ q: passage, mode: 'keyword' });
    expect(found.results[0].title).toBe('Postgres index tuning');
    // A pasted page (an argument, an abstract with its title) is a query too, in every mode.
    expect(SEARCH_QUERY_MAX).toBe(8_000);
    const long = passage.repeat(Math.ceil(SEARCH_QUERY_MAX / passage.length)).slice(0, SEARCH_QUERY_MAX);
    for (const mode of ['keyword', 'hybrid', 'semantic'])
      expect((await search({ q: long, mode })).results[0].title, mode).toBe('Postgres index tuning');
    const res = await get(owner.auth, `/api/search?${new URLSearchParams({ workspaceId: ws.id, q: `${long}x` })}`);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'q' }] });
  });

  it('semantic: finds by meaning where keywords fail (misspelt words)', async () => {
    expect((await search({ q: 'kubrnetes clustr upgarde', mode: 'keyword' })).results).toEqual([]);
    const body = await search({ q: 'kubrnetes clustr upgarde', mode: 'semantic' });
    expect(body.results[0].title).toBe('Kubernetes cluster upgrades');
    expect(body.results[0].matchedBy).toEqual(['semantic']);
    expect((await search({ q: 'brewing cofee temperature', mode: 'semantic' })).results[0].title).toBe(
      'Coffee brewing guide',
    );
  });

  it('semantic: an update that leaves the text alone (tags only) keeps the fragment findable by meaning', async () => {
    const id = idOf('Kubernetes cluster upgrades');
    const { fragment } = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${id}`, undefined, 200);
    const updated = await p.api.ok(
      owner.auth,
      'PATCH',
      `/api/memory-fragments/${id}`,
      { tags: [...fragment.tags, 'retagged'] },
      200,
    );
    expect(updated.fragment.version).toBe(fragment.version + 1);
    expect(updated.fragment.status).toBe('published');
    expect((await search({ q: 'kubernets clustr upgrade', mode: 'semantic' })).results[0]?.fragmentId).toBe(id);
  });

  it('keyword: an edited title or content is searchable as soon as the PATCH returns, the old words not after enrichment', async () => {
    // In the owner's second workspace, so the corpus of the other tests stays as it is.
    const id = await make(second, {
      title: 'Oolong tasting',
      tags: ['tea'],
      content: 'Rolled oolong leaves, three infusions.',
    });
    const inSecond = (q: string) => search({ workspaceId: second.id, q, mode: 'keyword' });
    expect((await inSecond('oolong')).results.map((r: any) => r.fragmentId)).toEqual([id]);
    const { fragment } = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${id}`, undefined, 200);
    await p.api.ok(
      owner.auth,
      'PATCH',
      `/api/memory-fragments/${id}`,
      { title: 'Sencha tasting', content: 'Steamed sencha leaves, two infusions.', version: fragment.version },
      200,
    );
    const renamed = await inSecond('which sencha did we taste');
    expect(renamed.results.map((r: any) => r.fragmentId)).toEqual([id]);
    expect(renamed.results[0].title).toBe('Sencha tasting');
    // The generated summary still describes the old text until enrichment has run again.
    await untilPublished(() => p.api.call(owner.auth, 'GET', `/api/memory-fragments/${id}`), 60_000);
    expect((await inSecond('oolong')).results).toEqual([]);
  });

  it('hybrid (default): fuses both retrievers', async () => {
    const body = await search({ q: 'coffee temperature' });
    expect(body.mode).toBe('hybrid');
    expect(body.results[0]).toMatchObject({ title: 'Coffee brewing guide', matchedBy: ['keyword', 'semantic'] });
    expect((await search({ q: 'postgres index' })).results[0].title).toBe('Postgres index tuning');
  });

  it('filters by tags, type and collection', async () => {
    expect((await search({ q: 'postgres', tags: 'hr' })).results.map((r: any) => r.title)).toEqual([
      'Team onboarding checklist',
    ]);
    expect((await search({ q: 'postgres', types: 'decision' })).results).toEqual([]);
    // Tags and type keys compare case-insensitively, as in the fragment list and the listing.
    for (const filters of [{ tags: 'HR' }, { tags: 'Hr', types: 'NOTE' }] as Array<Record<string, string>>)
      expect((await search({ q: 'postgres', ...filters })).results.map((r: any) => r.title)).toEqual([
        'Team onboarding checklist',
      ]);
    const collection = await p.api.ok(owner.auth, 'POST', `/api/workspaces/${ws.id}/collections`, { name: 'Ops' }, 201);
    await p.api.ok(
      owner.auth,
      'POST',
      `/api/workspaces/${ws.id}/collections/${collection.collection.id}/fragments`,
      { fragmentIds: [idOf('Kubernetes cluster upgrades')] },
      200,
    );
    const inCollection = await search({ q: 'kubernetes upgrade postgres', collectionId: collection.collection.id });
    expect(inCollection.results.map((r: any) => r.title)).toEqual(['Kubernetes cluster upgrades']);
  });

  it('never returns archived fragments or other workspaces, by any route', async () => {
    const foreignIds = new Set(
      Object.entries(ids)
        .filter(([k]) => !k.startsWith(ws.id))
        .map(([, v]) => v),
    );
    const archived = idOf('Archived postgres memo');
    for (const mode of ['keyword', 'semantic', 'hybrid']) {
      for (const q of ['postgres index', 'kubernetes', 'coffee', 'foreign', 'replication']) {
        const body = await search({ q, mode, limit: 100 });
        for (const r of body.results) {
          expect(foreignIds.has(r.fragmentId) || r.fragmentId === archived, `${mode} ${q}: ${r.title}`).toBe(false);
          expect(r.workspaceId).toBe(ws.id);
        }
      }
    }
    const suggestions = await search({ prefix: 'post' }, owner.auth, '/api/search/suggestions');
    expect(suggestions.suggestions.map((s: any) => s.text)).toEqual(['Postgres index tuning']);
    const tags = await search({ prefix: 'data' }, owner.auth, '/api/search/suggestions');
    expect(tags.suggestions).toEqual([{ text: 'database', kind: 'tag' }]);
    // The other tenant sees only its own.
    const theirs = await search({ workspaceId: foreign.id, q: 'postgres index' }, stranger.auth);
    expect(theirs.results.length).toBeGreaterThan(0);
    for (const r of theirs.results) expect(r.workspaceId).toBe(foreign.id);
    // Non-members: the same 404 as a missing workspace, on every workspace route.
    for (const path of [
      `/api/search?workspaceId=${ws.id}&q=postgres`,
      `/api/search/simple?workspaceId=${ws.id}&q=postgres`,
      `/api/search/suggestions?workspaceId=${ws.id}&prefix=po`,
      `/api/search/saved?workspaceId=${ws.id}`,
      `/api/search/analytics?workspaceId=${ws.id}`,
    ]) {
      const res = await get(stranger.auth, path);
      expect(res.status, path).toBe(404);
      expect(res.text).toBe(WORKSPACE_NOT_FOUND);
    }
  });

  it('global search covers every readable workspace and tags each hit with it', async () => {
    const qs = new URLSearchParams({ q: 'postgres', mode: 'keyword', limit: '100' });
    const mine = (await get(owner.auth, `/api/search/global?${qs}`)).body;
    expect(mine.workspaceCount).toBe(2);
    expect(new Set(mine.results.map((r: any) => r.workspaceId))).toEqual(new Set([ws.id, second.id]));
    expect(mine.results.find((r: any) => r.workspaceId === second.id).title).toBe('Postgres replication notes');
    const theirs = (await get(stranger.auth, `/api/search/global?${qs}`)).body;
    expect(theirs.results.length).toBeGreaterThan(0);
    for (const r of theirs.results) expect(r.workspaceId).toBe(foreign.id);
  });

  it('pages stably and completely', async () => {
    for (const mode of ['keyword', 'hybrid', 'semantic']) {
      const all = await search({ q: 'pagination test number', mode, limit: 100 });
      if (mode === 'keyword') expect(all.total).toBe(PAGED);
      const seen: string[] = [];
      for (let offset = 0; offset < all.total; offset += 5) {
        const page = await search({ q: 'pagination test number', mode, limit: 5, offset });
        expect(page.total).toBe(all.total);
        seen.push(...page.results.map((r: any) => r.fragmentId));
      }
      expect(seen, mode).toEqual(all.results.map((r: any) => r.fragmentId));
      expect(new Set(seen).size).toBe(seen.length);
    }
  });

  it('saved searches: create, list, run, delete; private to their user', async () => {
    const created = await p.api.ok(
      owner.auth,
      'POST',
      '/api/search/saved',
      { workspaceId: ws.id, name: 'DB', q: 'postgres', mode: 'keyword', tags: ['database'] },
      201,
    );
    expect(created.savedSearch).toMatchObject({
      name: 'DB',
      q: 'postgres',
      mode: 'keyword',
      tags: ['database'],
      types: [],
    });
    const id = created.savedSearch.id;
    const list = await p.api.ok(owner.auth, 'GET', `/api/search/saved?workspaceId=${ws.id}`, undefined, 200);
    expect(list.items.map((s: any) => s.id)).toEqual([id]);
    const run = await p.api.ok(owner.auth, 'POST', `/api/search/saved/${id}/run`, undefined, 200);
    expect(run.results.map((r: any) => r.title)).toEqual(['Postgres index tuning']);
    expect((await p.api.call(stranger.auth, 'POST', `/api/search/saved/${id}/run`)).status).toBe(404);
    expect((await p.api.call(stranger.auth, 'DELETE', `/api/search/saved/${id}`)).status).toBe(404);
    await p.api.ok(owner.auth, 'DELETE', `/api/search/saved/${id}`, undefined, 200);
    expect((await p.api.call(owner.auth, 'POST', `/api/search/saved/${id}/run`)).status).toBe(404);
  });

  it('analytics: counts, zero-result and top queries, for owners', async () => {
    await search({ q: 'nothing matches xyzzy', mode: 'keyword' });
    await search({ q: 'Nothing matches  XYZZY', mode: 'keyword' });
    const stats = await p.api.ok(owner.auth, 'GET', `/api/search/analytics?workspaceId=${ws.id}`, undefined, 200);
    expect(stats.totalQueries).toBeGreaterThan(10);
    expect(stats.zeroResultQueries).toBeGreaterThanOrEqual(2);
    expect(stats.topZeroResultQueries).toContainEqual({ query: 'nothing matches xyzzy', count: 2 });
    expect(stats.topQueries.length).toBeGreaterThan(0);
    // Another tenant's analytics are not visible, and a viewer is not an owner.
    const viewer = await p.person();
    await p.api.addMember(owner.auth, ws.id, viewer, 'viewer');
    expect((await get(viewer.auth, `/api/search/analytics?workspaceId=${ws.id}`)).status).toBe(403);
    expect((await search({ q: 'postgres' }, viewer.auth)).results.length).toBeGreaterThan(0);
  });

  it('stops', async () => {
    await p?.stop();
  });
}
