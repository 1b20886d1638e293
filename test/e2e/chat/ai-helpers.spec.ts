import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startExaStandIn, type ExaStandIn } from '../../support/stand-ins/exa-stand-in.js';
import { rawRequest } from '../../support/raw-http.js';
import { STAND_IN_ERROR_MESSAGES, startOpenAiStandIn, type StandIn } from '../../support/stand-ins/openai-stand-in.js';
import { call } from './chat-fixture.js';

type Caller = Awaited<ReturnType<typeof userWithToken>>;

/**
 * The AI helpers (`/api/ai/*`): embedding, summary and tags with the built-in provider and with
 * an OpenAI-compatible stand-in, availability (a chat provider that is down says so), and usage
 * that adds up exactly the calls a script made (enrichment, helpers, web searches, chat), per filter, with
 * another user's usage invisible and an owner seeing their workspace's.
 */
describe('AI helpers, availability and usage', () => {
  const admin = adminEnv();
  const dirs: string[] = [];
  let builtin: PlatformProcess;
  let compatible: PlatformProcess;
  let openai: StandIn;
  let exa: ExaStandIn;
  let owner: Caller;
  let other: Caller;

  const api = (platform: PlatformProcess, who: { token: string }, method: string, path: string, body?: unknown) =>
    call(platform.url, who.token, method, path, body);

  beforeAll(async () => {
    openai = await startOpenAiStandIn();
    exa = await startExaStandIn();
    const dir = () => {
      const d = tempDir('kw-ai-');
      dirs.push(d);
      return d;
    };
    builtin = await startEmbedded(dir(), {
      ...admin,
      WEB_SEARCH_PROVIDER: 'exa',
      WEB_SEARCH_URL: exa.url,
      WEB_SEARCH_API_KEY: exa.apiKey,
      CHAT_PROVIDERS: JSON.stringify({
        providers: [
          {
            id: 'standin',
            kind: 'openai',
            baseUrl: openai.url,
            apiKey: 'sk-test',
            retries: 0,
            models: [{ id: 'gpt-4o-mini' }],
          },
        ],
      }),
      AI_PRICES: JSON.stringify({
        'gpt-4o-mini': { inputPer1kTokens: 1, outputPer1kTokens: 2 },
        exa: { perSearch: 0.5 },
        'builtin-embedding': { per1kEmbeddings: 100 },
      }),
    });
    compatible = await startEmbedded(dir(), {
      ...admin,
      AI_PROVIDER: 'openai',
      AI_BASE_URL: openai.url,
      AI_API_KEY: 'sk-test',
      AI_EMBEDDING_MODEL: 'text-embedding-3-small',
      // A marker configured for queries (the model has none of its own): inputType asks for it.
      AI_EMBEDDING_QUERY_PREFIX: 'query: ',
      // Plan `tiny` has a monthly token budget (the tokens test assigns it); the default has none.
      PLANS: JSON.stringify({
        default: 'open',
        plans: [
          { id: 'open', name: 'Open' },
          { id: 'tiny', name: 'Tiny', limits: { monthlyTokens: 300 } },
        ],
      }),
      // A failing enrichment step is recorded after two quick attempts.
      ENRICHMENT_MAX_ATTEMPTS: '2',
      ENRICHMENT_RETRY_BASE_MS: '10',
      // A chat provider nobody answers at: availability must say so.
      CHAT_PROVIDERS: JSON.stringify({
        providers: [{ id: 'down', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-x', retries: 0 }],
      }),
    });
    owner = await userWithToken(builtin.url, admin.ADMIN_TOKEN);
    other = await userWithToken(builtin.url, admin.ADMIN_TOKEN);
  }, 120_000);

  afterAll(async () => {
    await builtin?.stop();
    await compatible?.stop();
    await openai?.close();
    await exa?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('embeds, summarizes and tags with the built-in provider, texts and fragments', async () => {
    const one = await api(builtin, owner, 'POST', '/api/ai/embedding', { input: 'kettles boil water' });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ provider: 'builtin', model: 'builtin-embedding' });
    expect(one.body.data).toHaveLength(1);
    expect(one.body.data[0].embedding).toHaveLength(one.body.dimension);
    const two = await api(builtin, owner, 'POST', '/api/ai/embedding', { input: ['a kettle', 'a teapot'] });
    expect(two.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);

    const text = 'The Zephyr kettle boils water in ninety seconds. It has a seven-year warranty. Descale it monthly.';
    const summary = await api(builtin, owner, 'POST', '/api/ai/summary', { text });
    expect(summary.status).toBe(200);
    expect(summary.body.summary.length).toBeGreaterThan(0);
    const tags = await api(builtin, owner, 'POST', '/api/ai/tags', { text, max: 3 });
    expect(tags.body.tags.length).toBeGreaterThan(0);
    expect(tags.body.tags.length).toBeLessThanOrEqual(3);

    const ws = (await api(builtin, owner, 'POST', '/api/workspaces', { name: 'helpers' })).body.workspace.id;
    const types = (await api(builtin, owner, 'GET', `/api/workspaces/${ws}/fragment-types`)).body.items;
    const fragment = await api(builtin, owner, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: types.find((t: { key: string }) => t.key === 'note').id,
      title: 'Kettle care',
      content: text,
    });
    const fromFragment = await api(builtin, owner, 'POST', '/api/ai/tags', { fragmentId: fragment.body.fragment.id });
    expect(fromFragment.status).toBe(200);
    // Another user may not read the fragment: 404, as everywhere.
    expect(
      (await api(builtin, other, 'POST', '/api/ai/summary', { fragmentId: fragment.body.fragment.id })).status,
    ).toBe(404);
    // Exactly one of text and fragmentId; limits.
    expect((await api(builtin, owner, 'POST', '/api/ai/summary', {})).status).toBe(400);
    expect(
      (await api(builtin, owner, 'POST', '/api/ai/summary', { text: 'x', fragmentId: fragment.body.fragment.id }))
        .status,
    ).toBe(400);
    expect((await api(builtin, owner, 'POST', '/api/ai/embedding', { input: Array(101).fill('x') })).status).toBe(400);
  });

  it('takes texts of 200,000 characters within the body limit, and answers a larger body 413 (docs/ai-helpers.md)', async () => {
    const texts = (n: number) => Array.from({ length: n }, () => 'a '.repeat(100_000));
    const fits = await api(builtin, owner, 'POST', '/api/ai/embedding', { input: texts(3) });
    expect(fits.status, fits.text).toBe(200);
    expect(fits.body.data).toHaveLength(3);
    // 27 such texts are 5.4 MB of JSON, over BODY_LIMIT_BYTES (5 MiB): refused on Content-Length
    // before it is read. Raw bytes: the server answers and closes while the body is still being
    // written, which fetch reports as a failed write (EPIPE) instead of the answer.
    const body = JSON.stringify({ input: texts(27) });
    const over = await rawRequest(
      builtin.url,
      `POST /api/ai/embedding HTTP/1.1\r\nHost: ${new URL(builtin.url).host}\r\nContent-Type: application/json\r\n` +
        `Authorization: Bearer ${owner.token}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      30_000,
    );
    expect(over.status, over.text).toBe(413);
    expect(JSON.parse(over.text)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('uses an OpenAI-compatible provider the same way, and tells which capabilities are down', async () => {
    const vectors = await api(compatible, { token: admin.ADMIN_TOKEN }, 'POST', '/api/ai/embedding', {
      input: ['alpha', 'beta'],
    });
    expect(vectors.status, vectors.text).toBe(200);
    expect(vectors.body).toMatchObject({ provider: 'openai', model: 'text-embedding-3-small', dimension: 8 });
    const summary = await api(compatible, { token: admin.ADMIN_TOKEN }, 'POST', '/api/ai/summary', {
      text: 'hello there',
    });
    expect(summary.body.summary).toContain('hello there');
    const sent = () => openai.requests.filter((r) => r.path === '/v1/embeddings').at(-1)!.body.input;
    expect(sent()).toEqual(['alpha', 'beta']);
    const asQuery = async (inputType: string) =>
      api(compatible, { token: admin.ADMIN_TOKEN }, 'POST', '/api/ai/embedding', { input: 'alpha', inputType });
    expect((await asQuery('query')).status).toBe(200);
    expect(sent()).toEqual(['query: alpha']);
    expect((await asQuery('document')).status).toBe(200);
    expect(sent()).toEqual(['alpha']);
    const bad = await asQuery('passage');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'inputType' }] });

    const byName = async (platform: PlatformProcess) =>
      Object.fromEntries(
        (
          (await api(platform, { token: admin.ADMIN_TOKEN }, 'GET', '/api/ai/availability')).body.capabilities as any[]
        ).map((c) => [c.name, c]),
      );
    const down = await byName(compatible);
    expect(down.embedding).toMatchObject({ available: true, provider: 'openai', model: 'text-embedding-3-small' });
    expect(down.chat.available).toBe(false);
    expect(down.chat.reason).toMatch(/down: the provider does not answer/);
    expect(down.web_search).toMatchObject({ available: false });
    const up = await byName(builtin);
    expect(up.embedding).toMatchObject({ available: true, provider: 'builtin' });
    expect(up.chat).toMatchObject({ available: true, provider: 'standin' });
    // Web search is configured there, but the admin account has no web-search access yet.
    expect(up.web_search.reason).toMatch(/no web-search access/);
  });

  it("answers a provider's failure with 502 in its own words: nothing of the provider's body, in answers or on fragments", async () => {
    const admin$ = { token: admin.ADMIN_TOKEN };
    const leaks = [STAND_IN_ERROR_MESSAGES[500], STAND_IN_ERROR_MESSAGES[401], STAND_IN_ERROR_MESSAGES[400], 'partial'];
    const expectNoLeak = (text: string) => {
      for (const leak of leaks) expect(text).not.toContain(leak);
      expect(text).not.toContain('sk-test');
    };
    const cases = [
      ['status-500', 'HTTP 500'],
      ['status-401', 'HTTP 401'],
      ['status-400', 'HTTP 400'],
      // A 200 whose JSON body breaks off: a parser's message would quote the provider's bytes.
      ['malformed-stream', 'the answer is not valid JSON'],
    ] as const;
    try {
      for (const [mode, words] of cases) {
        openai.setMode(mode);
        for (const [path, body] of [
          ['/api/ai/summary', { text: 'hello' }],
          ['/api/ai/tags', { text: 'hello' }],
          ['/api/ai/embedding', { input: 'hello' }],
        ] as const) {
          if (mode === 'malformed-stream' && path === '/api/ai/embedding') continue; // the stand-in breaks only completions
          const res = await api(compatible, admin$, 'POST', path, body);
          expect(res.status, `${mode} ${path}`).toBe(502);
          expect(res.body.code).toBe('UPSTREAM_ERROR');
          expect(res.body.error).toContain(words);
          expectNoLeak(res.text);
        }
      }
      // What the provider said is in the server's log, not in the answer.
      await expect
        .poll(() => compatible.logs)
        .toContainEqual(
          expect.objectContaining({ msg: 'AI provider failed', providerSaid: STAND_IN_ERROR_MESSAGES[500] }),
        );

      // Enrichment records the failure on the fragment, which any reader of the workspace sees.
      openai.setMode('status-500');
      const ws = (await api(compatible, admin$, 'POST', '/api/workspaces', { name: 'failing' })).body.workspace.id;
      const types = (await api(compatible, admin$, 'GET', `/api/workspaces/${ws}/fragment-types`)).body.items;
      const created = await api(compatible, admin$, 'POST', '/api/memory-fragments', {
        workspaceId: ws,
        fragmentTypeId: types.find((t: { key: string }) => t.key === 'note').id,
        title: 'Failing',
        content: 'The provider is down.',
      });
      const id = created.body.fragment.id;
      await expect
        .poll(async () => (await api(compatible, admin$, 'GET', `/api/memory-fragments/${id}`)).body.fragment.status, {
          timeout: 30_000,
        })
        .toBe('published');
      const read = await api(compatible, admin$, 'GET', `/api/memory-fragments/${id}`);
      const enrichment = read.body.fragment.enrichment;
      for (const step of ['summary', 'tags', 'embedding'])
        expect(enrichment[step], step).toMatchObject({ state: 'failed', error: expect.stringContaining('HTTP 500') });
      expectNoLeak(read.text);
    } finally {
      openai.setMode('ok');
    }
  });

  it("records the tokens the provider reports for helper and enrichment calls, and refuses helpers once the plan's budget is spent", async () => {
    const person = await userWithToken(compatible.url, admin.ADMIN_TOKEN);
    expect(
      (
        await api(compatible, { token: admin.ADMIN_TOKEN }, 'PUT', `/api/admin/users/${person.user.id}/plan`, {
          planId: 'tiny',
        })
      ).status,
    ).toBe(204);
    // The stand-in reports usage: chat completions 10 prompt tokens per message and a word per
    // output word, embeddings a prompt token per word.
    expect((await api(compatible, person, 'POST', '/api/ai/summary', { text: 'kettles boil water' })).status).toBe(200);
    expect((await api(compatible, person, 'POST', '/api/ai/tags', { text: 'kettles boil water' })).status).toBe(200);
    expect((await api(compatible, person, 'POST', '/api/ai/embedding', { input: ['one two', 'three'] })).status).toBe(
      200,
    );
    const ws = (await api(compatible, person, 'POST', '/api/workspaces', { name: 'tokens' })).body.workspace.id;
    const types = (await api(compatible, person, 'GET', `/api/workspaces/${ws}/fragment-types`)).body.items;
    await api(compatible, person, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: types.find((t: { key: string }) => t.key === 'note').id,
      title: 'Tokens',
      content: 'Counting the tokens of enrichment.',
    });
    // The pass's embedding, summary, tags and graph records.
    await expect
      .poll(
        async () => (await api(compatible, person, 'GET', '/api/ai/usage?capability=enrichment')).body.totals.requests,
        { timeout: 30_000 },
      )
      .toBe(4);
    const usage = (await api(compatible, person, 'GET', '/api/ai/usage?groupBy=capability')).body;
    const rows = Object.fromEntries(usage.rows.map((r: any) => [r.capability, r]));
    expect(rows.summary).toMatchObject({ requests: 1, inputTokens: 20, outputTokens: 4 });
    expect(rows.tags).toMatchObject({ requests: 1, inputTokens: 20, outputTokens: 4 });
    expect(rows.embedding).toMatchObject({ requests: 1, inputTokens: 3, outputTokens: 0 });
    // Summary and tags (20 in, the echoed content out each) and the chunk's words.
    expect(rows.enrichment.inputTokens).toBeGreaterThan(40);
    expect(rows.enrichment.outputTokens).toBeGreaterThan(0);
    const spent = usage.totals.inputTokens + usage.totals.outputTokens;
    expect((await api(compatible, person, 'GET', '/api/subscription')).body.usage.tokens).toBe(spent);

    // The budget (300) runs out: the next helper call is refused before the provider is asked.
    let refused: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await api(compatible, person, 'POST', '/api/ai/summary', { text: 'kettles boil water' });
      if (res.status !== 200) refused = res;
    }
    expect(refused?.status, refused?.text).toBe(403);
    expect(refused!.body).toMatchObject({ code: 'PLAN_LIMIT_REACHED', limit: 'monthlyTokens' });
    const asked = openai.requests.length;
    for (const [path, body] of [
      ['/api/ai/tags', { text: 'x' }],
      ['/api/ai/embedding', { input: 'x' }],
    ] as const)
      expect((await api(compatible, person, 'POST', path, body)).body.code).toBe('PLAN_LIMIT_REACHED');
    expect(openai.requests.length).toBe(asked);
  });

  it('adds up exactly what a scripted mix of calls did, per filter, and only the caller’s', async () => {
    const person = await userWithToken(builtin.url, admin.ADMIN_TOKEN);
    expect(
      (await api(builtin, { token: admin.ADMIN_TOKEN }, 'PUT', `/api/admin/users/${person.user.id}/web-search`)).status,
    ).toBe(204);
    const ws = (await api(builtin, person, 'POST', '/api/workspaces', { name: 'usage' })).body.workspace.id;
    const types = (await api(builtin, person, 'GET', `/api/workspaces/${ws}/fragment-types`)).body.items;
    const fragment = await api(builtin, person, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: types.find((t: { key: string }) => t.key === 'note').id,
      title: 'Usage',
      content: 'Counting calls of the helpers.',
    });
    // The script: the fragment's enrichment (its embedding, and the summary, tags and graph it
    // generated), 3 embeddings in 2 calls, 1 summary of the fragment, 2 tag calls, 2 web
    // searches, 2 chats.
    await api(builtin, person, 'POST', '/api/ai/embedding', { input: ['one', 'two'] });
    await api(builtin, person, 'POST', '/api/ai/embedding', { input: 'three' });
    await api(builtin, person, 'POST', '/api/ai/summary', { fragmentId: fragment.body.fragment.id });
    await api(builtin, person, 'POST', '/api/ai/tags', { text: 'tea and kettles' });
    await api(builtin, person, 'POST', '/api/ai/tags', { fragmentId: fragment.body.fragment.id });
    for (const query of ['kettles', 'teapots'])
      expect((await api(builtin, person, 'POST', '/api/v1/web/search', { query })).status).toBe(200);
    for (const content of ['hi', 'hello again'])
      expect(
        (
          await api(builtin, person, 'POST', '/api/v1/chat/completions', {
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content }],
          })
        ).status,
      ).toBe(200);
    // Chat and web search records are batched by the edge (at most half a second); enrichment's
    // record comes from the fragment.embedded event once the fragment is published.
    await new Promise((r) => setTimeout(r, 1200));
    await expect
      .poll(
        async () =>
          (await api(builtin, person, 'GET', `/api/memory-fragments/${fragment.body.fragment.id}`)).body.fragment
            .status,
        {
          timeout: 30_000,
        },
      )
      .toBe('published');
    await expect
      .poll(
        async () => (await api(builtin, person, 'GET', '/api/ai/usage?capability=enrichment')).body.totals.requests,
        {
          timeout: 10_000,
        },
      )
      .toBe(4);

    const usage = async (query: string, who: { token: string } = person) =>
      (await api(builtin, who, 'GET', `/api/ai/usage${query}`)).body;
    const byCapability = await usage('?groupBy=capability');
    const rows = Object.fromEntries(byCapability.rows.map((r: any) => [r.capability, r]));
    expect(rows.embedding).toMatchObject({ requests: 2, embeddings: 3 });
    expect(rows.summary).toMatchObject({ requests: 1 });
    expect(rows.tags).toMatchObject({ requests: 2 });
    expect(rows.web_search).toMatchObject({ requests: 2, searches: 2 });
    expect(rows.chat.requests).toBe(2);
    expect(rows.chat.inputTokens).toBeGreaterThan(0);
    expect(rows.enrichment.requests).toBe(4);
    expect(rows.enrichment.embeddings).toBeGreaterThanOrEqual(1);
    expect(byCapability.totals.requests).toBe(13);
    expect(byCapability.totalCount).toBe(6);
    // Costs from the price table: embeddings (helpers' 3 and enrichment's chunks) at 100 per 1k,
    // 2 searches at 0.5, chat tokens at 1 and 2 per 1k.
    const chatCost = (rows.chat.inputTokens * 1 + rows.chat.outputTokens * 2) / 1000;
    const embeddingCost = ((3 + rows.enrichment.embeddings) * 100) / 1000;
    expect(byCapability.totals.estimatedCost).toBeCloseTo(embeddingCost + 1 + chatCost, 6);

    // Filters: one workspace (the fragment's helper calls), one capability, a day range, paging.
    const inWorkspace = await usage(`?workspaceId=${ws}&groupBy=capability`);
    expect(inWorkspace.rows.map((r: any) => [r.capability, r.requests])).toEqual([
      ['enrichment', 4],
      ['summary', 1],
      ['tags', 1],
    ]);
    expect((await usage('?capability=web_search')).totals.searches).toBe(2);
    const empty = await api(builtin, person, 'GET', '/api/ai/usage?from=2000-01-01&to=2000-01-31');
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body.totals.requests).toBe(0);
    const page = await usage('?groupBy=capability&limit=2&offset=5');
    expect([page.rows.length, page.totalCount]).toEqual([1, 6]);
    const byDay = await usage('?groupBy=day');
    expect(byDay.rows).toHaveLength(1);
    expect(byDay.rows[0].day).toBe(new Date().toISOString().slice(0, 10));

    // Another user sees none of it, not even with the workspace's id.
    expect((await usage('', other)).totals.requests).toBe(0);
    expect((await api(builtin, other, 'GET', `/api/ai/usage?workspaceId=${ws}`)).status).toBe(404);
    // allUsers: platform administrators only.
    expect((await api(builtin, person, 'GET', '/api/ai/usage?allUsers=true')).status).toBe(403);
    const everyone = await usage('?allUsers=true', { token: admin.ADMIN_TOKEN });
    expect(everyone.totals.requests).toBeGreaterThanOrEqual(13 + 5);
    expect((await api(builtin, person, 'GET', '/api/ai/usage?groupBy=color')).status).toBe(400);
    // A day that does not exist is named as such (Date would take February 30 for March 2).
    const noSuchDay = await api(builtin, person, 'GET', '/api/ai/usage?from=2026-02-30&to=2026-03-01');
    expect(noSuchDay.status).toBe(400);
    expect(noSuchDay.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'from' }] });
    expect(noSuchDay.body.error).toMatch(/exists/);

    // A member's calls in the workspace: its owner sees them there, the member only their own.
    const member = await userWithToken(builtin.url, admin.ADMIN_TOKEN);
    const invited = await api(builtin, person, 'POST', `/api/workspaces/${ws}/members`, {
      email: member.user.email,
      role: 'contributor',
    });
    expect(invited.status, invited.text).toBe(201);
    expect((await api(builtin, member, 'POST', `/api/invitations/${invited.body.invitation.id}/accept`)).status).toBe(
      200,
    );
    const summarized = await api(builtin, member, 'POST', '/api/ai/summary', { fragmentId: fragment.body.fragment.id });
    expect(summarized.status, summarized.text).toBe(200);
    const summaries = async (who: { token: string }) =>
      (await usage(`?workspaceId=${ws}&capability=summary&groupBy=capability`, who)).totals.requests;
    expect(await summaries(person)).toBe(2);
    expect(await summaries(member)).toBe(1);
    // Their own usage, without the workspace filter, holds only their own calls.
    expect((await usage('', member)).totals.requests).toBe(1);
  });
});
