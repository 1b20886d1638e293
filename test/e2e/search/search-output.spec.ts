import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Person } from '../fragments/fragments-fixture.js';
import { startFilesPlatform } from '../files/files-fixture.js';
import { call, connectMcp } from '../mcp/mcp-fixture.js';

/**
 * Snippets are safe HTML whose only markup is `<mark>` (docs/search.md, "Snippets"), on every
 * route that answers them: a contributor's markup in a fragment or a file reaches a client that
 * renders the snippet (the only way to show the marks) as escaped text. The payloads are the
 * black-box report's: Postgres' ts_headline drops what its parser takes for a tag, and copied
 * the rest (`<img src=x onerror=…>`, `<svg/onload=…>`, entities) unescaped.
 */
const PAYLOADS: Array<{ word: string; content: string; snippet: string }> = [
  {
    word: 'vibraphonea',
    content: 'vibraphonea before <img src=x onerror=alert(3)> after',
    snippet: '<mark>vibraphonea</mark> before &lt;img src=x onerror=alert(3)&gt; after',
  },
  {
    word: 'vibraphoneb',
    content: 'vibraphoneb before <svg/onload=alert(5)> after',
    snippet: '<mark>vibraphoneb</mark> before &lt;svg/onload=alert(5)&gt; after',
  },
  {
    word: 'vibraphonec',
    content: 'vibraphonec before &lt;b&gt; entity after',
    snippet: '<mark>vibraphonec</mark> before &amp;lt;b&amp;gt; entity after',
  },
  {
    word: 'vibraphoned',
    content: `vibraphoned says "hi" & it's fine`,
    snippet: '<mark>vibraphoned</mark> says &quot;hi&quot; &amp; it&#39;s fine',
  },
  // The markers ts_headline is given cannot be forged from the text.
  {
    word: 'vibraphonee',
    content: 'vibraphonee \u0001forged\u0002 marks',
    snippet: '<mark>vibraphonee</mark>  forged  marks',
  },
  // What ts_headline's parser reads as tags is escaped too, not dropped.
  {
    word: 'vibraphonef',
    content: 'vibraphonef before <script>alert(1)</script> after',
    snippet: '<mark>vibraphonef</mark> before &lt;script&gt;alert(1)&lt;/script&gt; after',
  },
  // Code and maths keep their angle brackets; a word inside one is marked (the headline ends at its last match).
  {
    word: 'vibraphoneg',
    content: 'vibraphoneg List<String> and <b>bold</b>; if a<b and 5 > 3 then <notatag vibraphoneg> ok',
    snippet:
      '<mark>vibraphoneg</mark> List&lt;String&gt; and &lt;b&gt;bold&lt;/b&gt;; if a&lt;b and 5 &gt; 3 then &lt;notatag <mark>vibraphoneg</mark>',
  },
];

/** Markup other than <mark>: a tag, or a character that would start one or break out of an attribute. */
const unsafe = (snippet: string) => /<(?!\/?mark>)|[<>"']/.test(snippet.replace(/<\/?mark>/g, ''));

describe('what search answers: safe snippets, folded tag suggestions, the score as documented (embedded platform)', () => {
  let p: Awaited<ReturnType<typeof startFilesPlatform>>;
  let owner: Person;
  let ws: { id: string; noteTypeId: string };
  let mcp: Client;
  let fileId: string;

  beforeAll(async () => {
    p = await startFilesPlatform();
    owner = await p.person();
    ws = await p.workspace(owner);
    const ids: string[] = [];
    for (const { word, content } of PAYLOADS) {
      const { fragment } = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        // A summary of our own: a generated one would join the snippet once enrichment ran.
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: `${word} test`, content, summary: 'Payload.' },
        201,
      );
      ids.push(fragment.id);
    }
    // Embedded, for the hits by meaning.
    for (const id of ids)
      for (let i = 0; i < 300; i++) {
        const { body } = await p.api.call(owner.auth, 'GET', `/api/memory-fragments/${id}`);
        if (body.fragment.status === 'published') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    const upload = await p.upload(owner.auth, { workspaceId: ws.id }, [
      {
        name: 'payload.txt',
        bytes: Buffer.from('The marimbaphone ledger: before <img src=x onerror=alert(7)> after, "quoted" & done.'),
        mime: 'text/plain',
      },
    ]);
    expect(upload.status, upload.text).toBe(201);
    fileId = upload.body.files[0].id;
    expect(await p.settled(owner.auth, fileId)).toMatchObject({ status: 'ready' });
    mcp = await connectMcp(p.base, owner.auth);
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await p?.stop();
  });

  const get = (path: string, params: Record<string, string>) =>
    p.api.ok(owner.auth, 'GET', `${path}?${new URLSearchParams(params)}`, undefined, 200);

  it('workspace, simple and global search answer the text escaped, the matches in <mark>', async () => {
    for (const { word, snippet } of PAYLOADS) {
      for (const mode of ['keyword', 'hybrid']) {
        const found = await get('/api/search', { workspaceId: ws.id, q: word, mode });
        expect(found.results[0]?.snippet, `${mode} ${word}`).toBe(`Payload. ${snippet}`);
      }
      const simple = await get('/api/search/simple', { workspaceId: ws.id, q: word });
      expect(simple.results[0]?.snippet, `simple ${word}`).toBe(`Payload. ${snippet}`);
      const global = await get('/api/search/global', { q: word, mode: 'keyword' });
      expect(global.results[0]?.snippet, `global ${word}`).toBe(`Payload. ${snippet}`);
    }
    // A hit by meaning alone (no word to mark) shows the fragment's opening, escaped too.
    const semantic = await get('/api/search', { workspaceId: ws.id, q: 'vibraphonea', mode: 'semantic', limit: '100' });
    expect(semantic.results.length).toBeGreaterThan(0);
    for (const hit of semantic.results) expect(unsafe(hit.snippet), hit.snippet).toBe(false);
  });

  it('a saved search runs with the same snippets', async () => {
    const { word, snippet } = PAYLOADS[0]!;
    const saved = await p.api.ok(
      owner.auth,
      'POST',
      '/api/search/saved',
      { workspaceId: ws.id, name: 'payload', q: word, mode: 'keyword' },
      201,
    );
    const run = await p.api.ok(owner.auth, 'POST', `/api/search/saved/${saved.savedSearch.id}/run`, undefined, 200);
    expect(run.results.map((r: any) => r.snippet)).toEqual([`Payload. ${snippet}`]);
  });

  it('file hits, beside the fragments and in the files search, are safe HTML with <mark> too', async () => {
    const fileSnippet =
      '<mark>marimbaphone</mark> ledger: before &lt;img src=x onerror=alert(7)&gt; after, &quot;quoted&quot; &amp; done';
    const beside = await get('/api/search', { workspaceId: ws.id, q: 'marimbaphone' });
    expect(beside.files.map((f: any) => [f.fileId, f.snippet])).toEqual([[fileId, fileSnippet]]);
    const global = await get('/api/search/global', { q: 'marimbaphone' });
    expect(global.files.map((f: any) => f.snippet)).toEqual([fileSnippet]);
    for (const mode of ['keyword', 'hybrid']) {
      const files = await get('/api/files/search', { workspaceId: ws.id, q: 'marimbaphone', mode });
      expect(files.items[0]?.snippet, mode).toBe(fileSnippet);
    }
    const tool = await call(mcp, 'search_workspace_files', { workspaceId: ws.id, query: 'marimbaphone' });
    expect(tool.isError, tool.text).toBe(false);
    expect(tool.data.hits[0].snippet).toBe(fileSnippet);
  });

  it('the MCP search tool answers the same snippets, with a workspace and across workspaces', async () => {
    for (const { word, snippet } of PAYLOADS) {
      for (const args of [{ workspaceId: ws.id }, {}]) {
        const found = await call(mcp, 'search', { query: word, mode: 'keyword', ...args });
        expect(found.isError, found.text).toBe(false);
        expect(found.data.hits[0]?.snippet, `${word} ${JSON.stringify(args)}`).toBe(`Payload. ${snippet}`);
      }
    }
  });

  it('suggests a tag spelt in several cases once, as most of its fragments spell it', async () => {
    const tagged = async (tags: string[]) =>
      p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'Tagged', content: 'Tags only.', tags },
        201,
      );
    await tagged(['Even', 'evening']);
    await tagged(['even']);
    await tagged(['EVEN', 'Evening']);
    await tagged(['Odd']);
    await tagged(['odd']);
    const suggest = (prefix: string) =>
      get('/api/search/suggestions', { workspaceId: ws.id, prefix }).then((r) =>
        r.suggestions.filter((s: any) => s.kind === 'tag'),
      );
    // Even, even, EVEN: one each, so the first in code-point order; evening and Evening: a tie too.
    expect(await suggest('ev')).toEqual([
      { text: 'EVEN', kind: 'tag' },
      { text: 'Evening', kind: 'tag' },
    ]);
    await tagged(['even']);
    expect(await suggest('EV')).toEqual([
      { text: 'even', kind: 'tag' },
      { text: 'Evening', kind: 'tag' },
    ]);
    expect(await suggest('od')).toEqual([{ text: 'Odd', kind: 'tag' }]);
  });

  it("describes a hybrid hit's score as the code computes it (OpenAPI)", async () => {
    const doc: any = await (await fetch(`${p.base}/api/docs`)).json();
    const score: string = doc.components.schemas.SearchHitDto.properties.score.description;
    // BM25 divided by its best, the similarities min-max over their range (docs/search.md, "Retrieval").
    expect(score).toContain("BM25 divided by the list's best score");
    expect(score).toContain("the similarities min-max over the list's range: its worst candidate 0, its best 1");
    expect(score).not.toMatch(/each relative to its best/);
  });
});
