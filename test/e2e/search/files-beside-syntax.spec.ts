import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Person } from '../fragments/fragments-fixture.js';
import { startFilesPlatform } from '../files/files-fixture.js';
import { call, connectMcp } from '../mcp/mcp-fixture.js';

/** "café" typed composed (NFC) and decomposed (NFD: e then a combining acute accent). */
const CAFE_NFC = 'caf\u00e9';
const CAFE_NFD = 'cafe\u0301';

/**
 * The files shown beside a search's fragments read the query as the fragments' search does
 * (docs/search.md, "How a query is read"; docs/files.md, "Search"): ranked by its positive
 * words, no file whose name or extracted text holds an excluded word or phrase, and in Unicode
 * NFC, the query as the files' text, so a word typed decomposed finds it composed and the reverse.
 */
describe('files beside a search honour its syntax and read it in NFC', () => {
  let p: Awaited<ReturnType<typeof startFilesPlatform>>;
  let owner: Person;
  let ws: { id: string };
  let mcp: Client;

  const get = (path: string, params: Record<string, string>) =>
    p.api.ok(owner.auth, 'GET', `${path}?${new URLSearchParams(params)}`, undefined, 200);
  const names = (files: Array<{ name: string }>) => files.map((f) => f.name).sort();

  beforeAll(async () => {
    p = await startFilesPlatform();
    owner = await p.person();
    ws = await p.workspace(owner);
    const text = (name: string, body: string) => ({ name, bytes: Buffer.from(body), mime: 'text/plain' });
    const upload = await p.upload(owner.auth, { workspaceId: ws.id }, [
      text('final.txt', 'The zephyrine budget for the lighthouse, as agreed.'),
      text('notes.txt', 'The zephyrine budget for the lighthouse: a first draft, to be agreed.'),
      // The name holds the excluded word, the text does not.
      text('draft-v2.txt', 'The zephyrine budget for the lighthouse, second version.'),
      text('composed.txt', `Minutes of the quillmoor ${CAFE_NFC} meeting.`),
      text('decomposed.txt', `Receipts of the quillmoor ${CAFE_NFD} visit.`),
    ]);
    expect(upload.status, upload.text).toBe(201);
    for (const file of upload.body.files as Array<{ id: string }>)
      expect(await p.settled(owner.auth, file.id)).toMatchObject({ status: 'ready' });
    mcp = await connectMcp(p.base, owner.auth);
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await p?.stop();
  });

  it('shows no file holding an excluded word or phrase, in its text or its name, and the others', async () => {
    const every = ['draft-v2.txt', 'final.txt', 'notes.txt'];
    for (const [path, scope] of [
      ['/api/search', { workspaceId: ws.id }],
      ['/api/search/global', {}],
    ] as const) {
      const searched = (q: string) => get(path, { ...scope, q, mode: 'keyword' }).then((r) => names(r.files));
      expect(await searched('zephyrine'), path).toEqual(every);
      expect(await searched('zephyrine -draft'), path).toEqual(['final.txt']);
      expect(await searched('zephyrine -"first draft"'), path).toEqual(['draft-v2.txt', 'final.txt']);
      // Exclusions hold whatever ORs the query holds; OR and the quotes are not words to match.
      expect(await searched('"zephyrine budget" OR lighthouse -draft'), path).toEqual(['final.txt']);
    }
  });

  it('the MCP search tool shows the same files, with a workspace and across workspaces', async () => {
    for (const args of [{ workspaceId: ws.id }, {}]) {
      const found = await call(mcp, 'search', { query: 'zephyrine -draft', mode: 'keyword', ...args });
      expect(found.isError, found.text).toBe(false);
      expect(names(found.data.files), JSON.stringify(args)).toEqual(['final.txt']);
    }
  });

  it('a word typed composed or decomposed finds the files holding it either way', async () => {
    for (const q of [CAFE_NFC, CAFE_NFD]) {
      const beside = await get('/api/search', { workspaceId: ws.id, q });
      expect(names(beside.files), JSON.stringify(q)).toEqual(['composed.txt', 'decomposed.txt']);
      const global = await get('/api/search/global', { q });
      expect(names(global.files), JSON.stringify(q)).toEqual(['composed.txt', 'decomposed.txt']);
      // The files component's own search reads its query (and the text) in NFC too.
      const own = await get('/api/files/search', { workspaceId: ws.id, q, mode: 'keyword' });
      expect(names(own.items.map((i: any) => i.file)), JSON.stringify(q)).toEqual(['composed.txt', 'decomposed.txt']);
    }
    // The text is kept composed: what a client reads is what was searched.
    const [hit] = (await get('/api/files/search', { workspaceId: ws.id, q: 'receipts', mode: 'keyword' })).items;
    const chunks = await get(`/api/files/${hit.file.id}/chunks`, {});
    expect(chunks.items[0].text).toContain(`quillmoor ${CAFE_NFC} visit`);
  });
});
