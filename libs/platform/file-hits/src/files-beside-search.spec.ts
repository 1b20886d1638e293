import { afterEach, describe, expect, it } from 'vitest';
import {
  FILE_HITS_BESIDE_SEARCH,
  FILE_SEARCH_EXCLUSIONS_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  FilesService,
} from '@kw/contracts';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { SYNTAX_WORDS_MAX } from '@kw/platform-query-reading';
import { InProcessBus, InProcessTransport, serve, ServiceClient } from '@kw/platform-transport';
import { filesBesideSearch } from './files-beside-search.js';

/**
 * The one rule for the files beside a workspace search (REST and the MCP search tool), against
 * a files service answering over a real in-process transport.
 */
const WS = '0b7e5b1e-7a8c-4d6f-9a0b-1c2d3e4f5a6b';
const FILE = {
  id: '5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
  workspaceId: WS,
  name: 'handbook.pdf',
  mimeType: 'application/pdf',
  kind: 'pdf',
  status: 'ready',
};

let transports: InProcessTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.map((t) => t.drain()));
  transports = [];
});

function setUp(answer: () => Promise<unknown> | unknown) {
  const bus = new InProcessBus();
  const files = new InProcessTransport({ component: 'files', bus });
  const search = new InProcessTransport({ component: 'search', bus });
  transports.push(files, search);
  const asked: Array<{ query: string; exclude: string[]; mode: string; limit: number; offset: number }> = [];
  serve(files, FilesService.method.searchFiles, async (req) => {
    asked.push({ query: req.query, exclude: req.exclude, mode: req.mode, limit: req.limit, offset: req.offset });
    return (await answer()) as never;
  });
  const global: Array<{ query: string; exclude: string[]; limit: number }> = [];
  serve(files, FilesService.method.globalSearchFiles, async (req) => {
    global.push({ query: req.query, exclude: req.exclude, limit: req.limit });
    return (await answer()) as never;
  });
  return { client: new ServiceClient(search), asked, global };
}

const first = { workspaceId: WS, query: 'leave policy', offset: 0, fragmentFilters: false };

describe('filesBesideSearch', () => {
  it('asks the files search by words for the best few, with at most its query length', async () => {
    const { client, asked } = setUp(() => ({
      hits: [{ file: FILE, score: 2.5, matched: 'content', snippet: 'the leave policy', chunk: 3 }],
      totalCount: 1,
    }));
    const hits = await filesBesideSearch(client, { ...first, query: 'x'.repeat(FILE_SEARCH_QUERY_MAX_CHARS + 50) });
    expect(asked).toEqual([
      {
        query: 'x'.repeat(FILE_SEARCH_QUERY_MAX_CHARS),
        exclude: [],
        mode: 'keyword',
        limit: FILE_HITS_BESIDE_SEARCH,
        offset: 0,
      },
    ]);
    expect(hits.map((h) => [h.file?.name, h.snippet, h.chunk])).toEqual([['handbook.pdf', 'the leave policy', 3]]);
  });

  it('without a workspace, asks the global files search for the best few', async () => {
    const { client, asked, global } = setUp(() => ({
      hits: [{ file: FILE, score: 1, matched: 'name', snippet: '' }],
      totalCount: 1,
    }));
    const hits = await filesBesideSearch(client, { query: 'handbook', offset: 0, fragmentFilters: false });
    expect(global).toEqual([{ query: 'handbook', exclude: [], limit: FILE_HITS_BESIDE_SEARCH }]);
    expect(asked).toEqual([]);
    expect(hits.map((h) => h.file?.workspaceId)).toEqual([WS]);
  });

  it('reads the query as the fragments search does: its positive words rank, its exclusions go along, in NFC', async () => {
    const { client, asked, global } = setUp(() => ({ hits: [], totalCount: 0 }));
    await filesBesideSearch(client, { ...first, query: '"leave policy" OR budget -draft -"first cafe\u0301"' });
    await filesBesideSearch(client, { query: 'budget -draft', offset: 0, fragmentFilters: false });
    expect(asked.map((a) => [a.query, a.exclude])).toEqual([['leave policy budget', ['draft', 'first caf\u00e9']]]);
    expect(global.map((g) => [g.query, g.exclude])).toEqual([['budget', ['draft']]]);
    // A query with syntax has at most SYNTAX_WORDS_MAX words: the contract takes all its exclusions.
    expect(SYNTAX_WORDS_MAX).toBeLessThanOrEqual(FILE_SEARCH_EXCLUSIONS_MAX);
  });

  it('shows no files past the first page, with fragment-only filters, or for a query without words to rank, without asking', async () => {
    const { client, asked } = setUp(() => ({ hits: [], totalCount: 0 }));
    expect(await filesBesideSearch(client, { ...first, offset: 10 })).toEqual([]);
    expect(await filesBesideSearch(client, { ...first, fragmentFilters: true })).toEqual([]);
    expect(await filesBesideSearch(client, { ...first, query: '   ' })).toEqual([]);
    // Exclusions alone say what is not wanted, not what is: the fragments search finds nothing either.
    expect(await filesBesideSearch(client, { ...first, query: '-draft -"first draft"' })).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('gives no files when the caller may not read them or no files service answers', async () => {
    const refused = setUp(() => {
      throw new AppError({ status: 403, code: ErrorCode.FORBIDDEN, message: 'Missing scope files:read' });
    });
    expect(await filesBesideSearch(refused.client, first)).toEqual([]);
    expect(refused.asked).toHaveLength(1);

    const bus = new InProcessBus();
    const lonely = new InProcessTransport({ component: 'search', bus });
    transports.push(lonely);
    expect(await filesBesideSearch(new ServiceClient(lonely), first)).toEqual([]);
  });

  it('lets a defect through rather than answer it as "no files"', async () => {
    const broken = { call: () => Promise.reject(new TypeError('defect')) } as unknown as ServiceClient;
    await expect(filesBesideSearch(broken, first)).rejects.toThrow('defect');
  });
});
