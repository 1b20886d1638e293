import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { call, connectMcp } from '../mcp/mcp-fixture.js';

const MODES = ['keyword', 'hybrid', 'semantic'] as const;

/** Decomposed (NFD) forms, as some keyboards and pasted text send them. */
const CAFE_NFD = 'cafe\u0301';
const CREME_NFD = 'Cre\u0300me bru\u0302le\u0301e';

/**
 * Search syntax (docs/search.md, "How a query is read") in every mode and through every route:
 * exclusions and quoted phrases hold for the vector side too, an exclusion holds for the whole
 * query whatever ORs it holds, the words a model reads leave the operators and excluded words
 * out; the answer of a hybrid search holds no zero-score semantic-only noise; agentic search
 * names only the words a lead holds; a query is read in NFC (composed) Unicode, and so is the
 * text the keyword index reads.
 */
describe('search syntax in every mode', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;
  let mcp: Client;
  const ids: Record<string, string> = {};

  const search = async (params: Record<string, string | number>, path = '/api/search') => {
    const qs = new URLSearchParams(
      Object.entries({ workspaceId: ws.id, limit: 100, ...params }).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const res = await p.api.call(owner.auth, 'GET', `${path}?${qs}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const titles = async (q: string, mode: string) =>
    (await search({ q, mode })).results.map((r: any) => r.title as string);

  const KAFKA = ['Billing queue with retries', 'Billing queue on rabbit'];

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    ws = await p.workspace(owner);
    const make = async (title: string, content: string, tags: string[] = [], summary?: string) => {
      const res = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
        workspaceId: ws.id,
        fragmentTypeId: ws.noteTypeId,
        title,
        content,
        tags,
        summary,
      });
      expect(res.status, res.text).toBe(201);
      ids[title] = res.body.fragment.id;
    };
    await make('Billing queue with retries', 'The billing queue retries failed invoices through Kafka.', ['kafka']);
    await make('Billing queue on rabbit', 'Our billing queue moved from Kafka to RabbitMQ last spring.');
    await make('Billing queue on redis', 'The billing queue runs on Redis streams with consumer groups.');
    await make('Zebra husbandry', 'How to feed a zebra in winter.');
    await make('Giraffe husbandry', 'How to feed a giraffe from tall racks.');
    await make('Kubernetes cluster upgrades', 'Drain the nodes, then roll the control plane without downtime.');
    await make('Pilot duties', 'Who has control of the plane when the pilot sleeps.');
    await make('Café résumé', 'Notes from the café in Zürich: a résumé of the meeting.');
    await make('Dessert menu', `${CREME_NFD} and sorbet on Fridays.`);
    await make('Vitamin supplements', 'Vitamin D supplements in winter for older adults.');
    // Fields side by side: "roadmap" ends the title and "Budget" starts the summary, "drafted"
    // ends the summary and "Spreadsheet" starts the content; two tags "ledger" and "audit".
    await make(
      'Quarterly roadmap',
      'Spreadsheet attached for the board.',
      [],
      'Budget figures arrive in March, drafted',
    );
    await make(
      'Hiring plan',
      'The roadmap budget is approved; we drafted spreadsheet templates.',
      [],
      'Hiring next year.',
    );
    await make(
      'Month-end close',
      'Ledger reconciliation, then audit sign-off by the fifth.',
      ['ledger', 'audit'],
      'Closing the books.',
    );
    await make(
      'Year-end close',
      'Ledger reconciliation, then audit sign-off by the tenth.',
      ['ledger audit'],
      'Closing the year.',
    );
    // Semantic retrieval needs the embeddings (expect.poll is not available in beforeAll).
    for (const id of Object.values(ids)) {
      for (let i = 0; ; i++) {
        const res = await p.api.call(owner.auth, 'GET', `/api/memory-fragments/${id}`);
        if (res.body.fragment?.status === 'published') break;
        if (i === 600) throw new Error(`fragment ${id} not published in time`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    mcp = await connectMcp(p.platform.url, owner.auth);
  }, 240_000);

  afterAll(async () => {
    await mcp?.close();
    await p?.stop();
  });

  it('honours an exclusion in every mode, and does not embed the excluded word', async () => {
    for (const mode of MODES) {
      const found = await titles('billing queue -kafka', mode);
      expect(found, mode).toContain('Billing queue on redis');
      for (const title of KAFKA) expect(found, `${mode}: ${title}`).not.toContain(title);
    }
    expect(await titles('billing queue -kafka', 'keyword')).toEqual(['Billing queue on redis']);
    // The vector side read "billing queue": the excluded word neither pulls fragments up nor
    // changes the similarity of what is left.
    const plain = (await search({ q: 'billing queue', mode: 'semantic' })).results;
    const excluding = (await search({ q: 'billing queue -kafka', mode: 'semantic' })).results;
    const redis = (list: any[]) => list.find((r) => r.title === 'Billing queue on redis')?.score;
    expect(redis(excluding)).toBeCloseTo(redis(plain), 6);
    // An excluded phrase too.
    for (const mode of MODES)
      expect(await titles('billing queue -"moved from kafka"', mode), mode).not.toContain('Billing queue on rabbit');
  });

  it('requires a quoted phrase in every mode; plain words stay a matter of meaning on the vector side', async () => {
    for (const mode of MODES) {
      const found = await titles('"control plane"', mode);
      expect(found, mode).toEqual(['Kubernetes cluster upgrades']);
    }
    // Next to a phrase, an unquoted word is required by keyword only: the vector side keeps the
    // fragments holding the phrase, whatever their other words.
    for (const mode of MODES)
      expect(await titles('"control plane" downtime', mode), mode).toEqual(['Kubernetes cluster upgrades']);
    expect(await titles('"control plane" zebra', 'semantic')).toEqual(['Kubernetes cluster upgrades']);
    // A phrase no candidate holds is read as plain words, on each side (its exclusions kept).
    const relaxed = await titles('"lunar eclipse" billing queue -kafka', 'semantic');
    expect(relaxed).toContain('Billing queue on redis');
    for (const title of KAFKA) expect(relaxed).not.toContain(title);
  });

  it('matches a phrase inside one field (title, one tag, summary or content), never across two', async () => {
    for (const mode of MODES) {
      // Title end + summary start, and summary end + content start: only the content holding it.
      expect(await titles('"roadmap budget"', mode), mode).toEqual(['Hiring plan']);
      expect(await titles('"drafted spreadsheet"', mode), mode).toEqual(['Hiring plan']);
      // One tag holding the phrase, not two tags side by side.
      expect(await titles('"ledger audit"', mode), mode).toEqual(['Year-end close']);
    }
    // A stop word beside the phrase still asks nothing.
    expect(await titles('the "roadmap budget"', 'keyword')).toEqual(['Hiring plan']);
    // The words themselves, apart, still match.
    expect((await titles('roadmap budget', 'keyword')).sort()).toEqual(['Hiring plan', 'Quarterly roadmap']);
    expect((await titles('ledger audit', 'keyword')).sort()).toEqual(['Month-end close', 'Year-end close']);
  });

  it('excludes a phrase only where one field holds it', async () => {
    expect(await titles('roadmap -"roadmap budget"', 'keyword')).toEqual(['Quarterly roadmap']);
    expect(await titles('spreadsheet -"drafted spreadsheet"', 'keyword')).toEqual(['Quarterly roadmap']);
    expect(await titles('reconciliation -"ledger audit"', 'keyword')).toEqual(['Month-end close']);
    for (const mode of MODES) {
      const found = await titles('ledger reconciliation -"ledger audit"', mode);
      expect(found, mode).toContain('Month-end close');
      expect(found, mode).not.toContain('Year-end close');
    }
    // Agentic search leaves out what the exclusion names, and only that.
    const res = await p.api.call(owner.auth, 'POST', '/api/fragments/agentic-search', {
      workspaceId: ws.id,
      query: 'ledger reconciliation -"ledger audit"',
      maxLeads: 50,
    });
    expect(res.status, res.text).toBe(200);
    const leads = res.body.leads.map((l: any) => l.title);
    expect(leads).toContain('Month-end close');
    expect(leads).not.toContain('Year-end close');
  });

  it('keeps an exclusion for the whole query, whatever ORs it holds', async () => {
    for (const mode of MODES) {
      const found = await titles('zebra OR giraffe -winter', mode);
      expect(found, mode).not.toContain('Zebra husbandry');
      expect(found, mode).not.toContain('Vitamin supplements');
      if (mode !== 'semantic') expect(found, mode).toContain('Giraffe husbandry');
      expect(await titles('feed OR nothing -zebra', mode), mode).not.toContain('Zebra husbandry');
    }
    expect(await titles('zebra OR giraffe -winter', 'keyword')).toEqual(['Giraffe husbandry']);
    expect(await titles('-winter zebra OR giraffe', 'keyword')).toEqual(['Giraffe husbandry']);
    // OR still offers alternatives.
    expect((await titles('zebra OR giraffe', 'keyword')).sort()).toEqual(['Giraffe husbandry', 'Zebra husbandry']);
  });

  it('holds in global search and in the MCP search tool (hybrid by default)', async () => {
    const qs = new URLSearchParams({ q: 'billing queue -kafka', limit: '100' });
    const global = await p.api.call(owner.auth, 'GET', `/api/search/global?${qs}`);
    expect(global.status, global.text).toBe(200);
    const globalTitles = global.body.results.map((r: any) => r.title);
    expect(globalTitles).toContain('Billing queue on redis');
    for (const title of KAFKA) expect(globalTitles).not.toContain(title);
    for (const args of [
      { workspaceId: ws.id, query: 'billing queue -kafka' },
      { query: 'billing queue -kafka' },
      { workspaceId: ws.id, query: 'billing queue -kafka', mode: 'semantic' },
      { workspaceId: ws.id, query: '"control plane"' },
    ]) {
      const res = await call(mcp, 'search', { ...args, limit: 50 });
      expect(res.isError, res.text).toBe(false);
      const found = res.data.hits.map((h: any) => h.title);
      expect(found.length, JSON.stringify(args)).toBeGreaterThan(0);
      for (const title of [...KAFKA, 'Pilot duties']) expect(found, JSON.stringify(args)).not.toContain(title);
    }
  });

  it('hybrid answers hold no semantic-only hit of fused score 0, and page consistently', async () => {
    for (const q of ['billing queue', '"control plane"', 'zebra', 'feed the giraffe', 'winter supplements']) {
      const all = await search({ q, mode: 'hybrid' });
      const noise = all.results.filter((r: any) => r.score === 0 && r.matchedBy.join() === 'semantic');
      expect(
        noise.map((r: any) => r.title),
        q,
      ).toEqual([]);
      expect(all.total, q).toBe(all.results.length);
      const seen: string[] = [];
      for (let offset = 0; offset < all.total; offset += 2) {
        const page = await search({ q, mode: 'hybrid', limit: 2, offset });
        expect(page.total, q).toBe(all.total);
        seen.push(...page.results.map((r: any) => r.fragmentId));
      }
      expect(seen, q).toEqual(all.results.map((r: any) => r.fragmentId));
    }
  });

  it('agentic search names only the words a lead holds, never an excluded one, and leaves excluded fragments out', async () => {
    const agentic = async (query: string) => {
      const res = await p.api.call(owner.auth, 'POST', '/api/fragments/agentic-search', {
        workspaceId: ws.id,
        query,
        maxLeads: 50,
      });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const excluding = await agentic('billing queue -kafka');
    expect(excluding.expandedTerms).not.toContain('kafka');
    expect(excluding.steps.find((s: any) => s.kind === 'keyword').terms).not.toContain('kafka');
    const redis = excluding.leads.find((l: any) => l.title === 'Billing queue on redis');
    expect(redis.why).toContain('keyword match (billing, queue)');
    for (const lead of excluding.leads) {
      expect(lead.why, lead.title).not.toMatch(/kafka/i);
      expect(KAFKA, lead.title).not.toContain(lead.title);
    }
    const both = await agentic('zebra giraffe');
    const giraffe = both.leads.find((l: any) => l.title === 'Giraffe husbandry');
    expect(giraffe.why).toContain('keyword match (giraffe)');
    expect(giraffe.why).not.toContain('zebra');
    const zebra = both.leads.find((l: any) => l.title === 'Zebra husbandry');
    expect(zebra.why).toContain('keyword match (zebra)');
  });

  it('reads a query typed in decomposed Unicode (NFD) as its composed form, and finds text stored decomposed', async () => {
    for (const mode of MODES) {
      const composed = await titles('café', mode);
      expect(composed[0], mode).toBe('Café résumé');
      expect(await titles(CAFE_NFD, mode), mode).toEqual(composed);
      expect(await titles('Zu\u0308rich', mode), mode).toEqual(await titles('Zürich', mode));
    }
    // The dessert's text was sent decomposed: it is kept as sent, and found by either form.
    const { fragment } = await p.api.ok(
      owner.auth,
      'GET',
      `/api/memory-fragments/${ids['Dessert menu']}`,
      undefined,
      200,
    );
    expect(fragment.content.startsWith(CREME_NFD)).toBe(true);
    for (const q of ['crème brûlée', CREME_NFD.toLowerCase(), '"crème brûlée"'])
      expect(await titles(q, 'keyword'), q).toEqual(['Dessert menu']);
    // Accents are significant: no folding (docs/search.md).
    expect(await titles('cafe', 'keyword')).toEqual([]);
  });
});
