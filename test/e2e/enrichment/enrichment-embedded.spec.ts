import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { flakyOpenAiServer, untilPublished } from './enrichment-fixture.js';

const LONG = Array.from(
  { length: 12 },
  (_, i) =>
    `## Part ${i}\n\nAda Lovelace and Charles Babbage discussed the Analytical Engine with TypeScript and PostgreSQL. ` +
    'More words about engines and notes. '.repeat(10),
).join('\n\n');

/**
 * Enrichment in the embedded mode: outbox -> in-process bus -> worker, observed over HTTP. The
 * relay polls only once a minute here: every write below reaches the worker because the write
 * itself wakes the relay of its process (outboxWritten), or the suite's waits time out.
 */
describe('enrichment (embedded, in-process bus)', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;
  const create = (fields: Record<string, unknown>) =>
    p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'Note', ...fields },
      201,
    );
  const get = (id: string) => p.api.call(owner.auth, 'GET', `/api/memory-fragments/${id}`);

  beforeAll(async () => {
    p = await startFragmentsPlatform({ OUTBOX_POLL_INTERVAL_MS: '60000' });
    owner = await p.person();
    ws = await p.workspace(owner);
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  });

  it('answers processing at once, then publishes with summary, tags and every step done', async () => {
    const { fragment } = await create({
      content: 'Vector search finds notes by meaning. Embeddings are computed for every note. #search',
    });
    expect(fragment.status).toBe('processing');
    const done = await untilPublished(() => get(fragment.id));
    expect(done.summary).toContain('Vector search finds notes by meaning.');
    expect(done.tags).toContain('search');
    for (const step of ['summary', 'tags', 'embedding', 'graph'])
      expect(done.enrichment[step]).toMatchObject({ state: 'done', attempts: 1, version: 1 });
  });

  it('keeps a supplied summary and merges generated tags into supplied ones with enhanceTags', async () => {
    const { fragment } = await create({ content: LONG, summary: 'Mine.', tags: ['kept'], enhanceTags: true });
    const done = await untilPublished(() => get(fragment.id));
    expect(done.summary).toBe('Mine.');
    expect(done.tags[0]).toBe('kept');
    expect(done.tags.length).toBeGreaterThan(1);
    expect(new Set(done.tags).size).toBe(done.tags.length);
    expect(done.enrichment.summary.state).toBe('skipped');
    expect(done.enrichment.embedding.state).toBe('done');
  });

  it('publishes a fragment holding words no tag or graph entity can hold, with tags a client can send back', async () => {
    // Before, the 12,000-character word became a tag (too big for the tag index) and the long
    // wiki link an entity (too big for the graph's): every write failed, forever "processing".
    const blob = 'a1b2c3d4e5f6'.repeat(1_000);
    const link = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
    const url = `https://example.com/${'p'.repeat(3_000)}`;
    const { fragment } = await create({
      content: `# Key\n\n${blob}\n\nSee [[${link}]] and ${url} about PostgreSQL. ${blob}`,
    });
    const done = await untilPublished(() => get(fragment.id));
    for (const step of ['summary', 'tags', 'embedding', 'graph'])
      expect(done.enrichment[step]).toMatchObject({ state: 'done', version: 1 });
    expect(done.tags.length).toBeGreaterThan(0);
    expect(done.tags.every((t: string) => t.length <= 100)).toBe(true);
    const patched = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, { tags: done.tags });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  });

  it('generates a summary again when a PATCH clears it with "", and only the summary', async () => {
    const content = 'Vector search finds notes by meaning. Embeddings are computed for every note.';
    const { fragment } = await create({ content, summary: 'Mine.', tags: ['kept'] });
    const before = await untilPublished(() => get(fragment.id));
    expect(before.summary).toBe('Mine.');
    expect(before.enrichment.summary.state).toBe('skipped');

    const cleared = await p.api.ok(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, { summary: '' }, 200);
    expect(cleared.fragment).toMatchObject({ summary: null, status: 'processing', version: 2 });
    expect(cleared.fragment.enrichment.summary.state).toBe('pending');
    const done = await untilPublished(() => get(fragment.id));
    expect(done.summary).toContain('Vector search finds notes by meaning.');
    expect(done.enrichment.summary).toMatchObject({ state: 'done', version: 2 });
    // The other steps are not run again: the text did not change.
    expect(done.enrichment.embedding).toMatchObject({ state: 'done', version: 1 });
    expect(done.enrichment.tags.state).toBe('skipped');
    expect(done.tags).toEqual(['kept']);
    // Its chunks follow the new version (search reads only the current version's): still found by meaning.
    const found = await p.api.ok(
      owner.auth,
      'GET',
      `/api/search?workspaceId=${ws.id}&mode=semantic&q=${encodeURIComponent('vector search meaning')}`,
      undefined,
      200,
    );
    expect(JSON.stringify(found)).toContain(fragment.id);
  });

  it('follows the workspace settings enrichment.summaries and enrichment.tags, from the next write on', async () => {
    const own = await p.workspace(owner);
    const settings = (enrichment: Record<string, boolean>) =>
      p.api.ok(owner.auth, 'PATCH', `/api/workspaces/${own.id}/settings`, { enrichment }, 200);
    const write = (fields: Record<string, unknown>) =>
      p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: own.id, fragmentTypeId: own.noteTypeId, title: 'Note', ...fields },
        201,
      );
    const content = 'Vector search finds notes by meaning. Embeddings are computed for every note. #search';

    // Read right after the change: a cached access answer of the workspace must not hide it.
    await write({ content: 'Warms the cached answer.' });
    await settings({ summaries: false, tags: false });
    const off = await write({ content, enhanceTags: true });
    expect(off.fragment.enrichment).toMatchObject({ summary: { state: 'skipped' }, tags: { state: 'skipped' } });
    const plain = await untilPublished(() => get(off.fragment.id));
    expect(plain).toMatchObject({ summary: null, tags: [] });
    expect(plain.enrichment.embedding.state).toBe('done');
    // An edit of the text, and a summary cleared, generate nothing either while they are off.
    const edited = await p.api.ok(
      owner.auth,
      'PATCH',
      `/api/memory-fragments/${off.fragment.id}`,
      { content: `${content} More.`, summary: '' },
      200,
    );
    expect(edited.fragment.enrichment).toMatchObject({ summary: { state: 'skipped' }, tags: { state: 'skipped' } });
    expect(await untilPublished(() => get(off.fragment.id))).toMatchObject({ summary: null, tags: [] });

    // Only summaries off: tags are generated, the summary is not.
    await settings({ tags: true });
    const second = await write({ content });
    const tagsOnly = await untilPublished(() => get(second.fragment.id));
    expect(tagsOnly.summary).toBeNull();
    expect(tagsOnly.tags).toContain('search');
    expect(tagsOnly.enrichment.summary.state).toBe('skipped');

    await settings({ summaries: true });
    const third = await write({ content });
    const on = await untilPublished(() => get(third.fragment.id));
    expect(on.summary).toContain('Vector search finds notes by meaning.');
    expect(on.tags).toContain('search');
    for (const step of ['summary', 'tags']) expect(on.enrichment[step].state).toBe('done');
  });

  it('reads tags: null as tags not sent: AI tags on create, unchanged on PATCH', async () => {
    const { fragment } = await create({ content: 'Vector search finds notes by meaning. #search', tags: null });
    const done = await untilPublished(() => get(fragment.id));
    expect(done.enrichment.tags.state).toBe('done');
    expect(done.tags).toContain('search');
    const patched = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, { tags: null });
    expect(patched.status).toBe(200);
    expect(patched.body.fragment.tags).toEqual(done.tags);
  });

  it('re-enriches on request: back to processing, then published again', async () => {
    const { fragment } = await create({ content: 'Short note about Redis.' });
    await untilPublished(() => get(fragment.id));
    const res = await p.api.call(owner.auth, 'POST', `/api/memory-fragments/${fragment.id}/enrich`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      id: fragment.id,
      status: 'processing',
      steps: ['summary', 'tags', 'embedding', 'graph'],
      version: 1,
    });
    const done = await untilPublished(() => get(fragment.id));
    expect(done.enrichment.embedding.state).toBe('done');
    const unknown = await p.api.call(
      owner.auth,
      'POST',
      '/api/memory-fragments/00000000-0000-4000-8000-000000000000/enrich',
    );
    expect(unknown.status).toBe(404);
    const stranger = await p.person();
    expect((await p.api.call(stranger.auth, 'POST', `/api/memory-fragments/${fragment.id}/enrich`)).status).toBe(404);
  });
});

describe('enrichment with a failing provider (AI_PROVIDER=openai on a server answering 500)', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let ai: Awaited<ReturnType<typeof flakyOpenAiServer>>;
  let owner: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;

  beforeAll(async () => {
    ai = await flakyOpenAiServer();
    p = await startFragmentsPlatform({
      AI_PROVIDER: 'openai',
      AI_BASE_URL: ai.url,
      AI_API_KEY: 'k',
      ENRICHMENT_MAX_ATTEMPTS: '3',
      ENRICHMENT_RETRY_BASE_MS: '20',
    });
    owner = await p.person();
    ws = await p.workspace(owner);
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
    await ai?.close();
  });

  it('retries each step, records the failure, publishes anyway, and succeeds when re-enriched', async () => {
    const { fragment } = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      {
        workspaceId: ws.id,
        fragmentTypeId: ws.noteTypeId,
        title: 'T',
        content: 'Grace Hopper wrote the first compiler.',
      },
      201,
    );
    const get = () => p.api.call(owner.auth, 'GET', `/api/memory-fragments/${fragment.id}`);
    const failed = await untilPublished(get);
    for (const step of ['summary', 'tags', 'embedding']) {
      expect(failed.enrichment[step]).toMatchObject({ state: 'failed', attempts: 3, version: 1 });
      expect(failed.enrichment[step].error).toContain('HTTP 500');
    }
    // Graph extraction is pattern-based with either provider.
    expect(failed.enrichment.graph.state).toBe('done');
    expect(failed.content).toBe('Grace Hopper wrote the first compiler.');
    expect(ai.calls()).toBe(9);

    ai.failing.on = false;
    const res = await p.api.call(owner.auth, 'POST', `/api/memory-fragments/${fragment.id}/enrich`);
    expect(res.status).toBe(202);
    expect(res.body.steps).toEqual(['summary', 'tags', 'embedding']);
    const fixed = await untilPublished(get);
    expect(fixed.summary).toBe('Remote summary.');
    expect(fixed.tags).toEqual(['remote']);
    for (const step of ['summary', 'tags', 'embedding', 'graph']) expect(fixed.enrichment[step].state).toBe('done');
  });
});
