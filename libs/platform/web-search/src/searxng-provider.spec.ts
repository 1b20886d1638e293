import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { startSearxngStandIn, type SearxngStandIn } from '../../../../test/support/stand-ins/searxng-stand-in.js';
import { SearxngProvider, type WebSearchRequest } from './index.js';

const request = (over: Partial<WebSearchRequest> = {}): WebSearchRequest => ({
  query: 'kw platform',
  numResults: 5,
  type: 'auto',
  includeText: false,
  ...over,
});

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('SearxngProvider', () => {
  let standIn: SearxngStandIn;
  beforeAll(async () => {
    standIn = await startSearxngStandIn();
  });
  afterAll(async () => {
    await standIn.close();
  });
  afterEach(() => {
    standIn.setMode('ok');
    standIn.setResults(
      Array.from({ length: 25 }, (_, i) => ({ title: `Result ${i + 1}`, url: `https://example.com/page-${i + 1}` })),
    );
    standIn.requests.length = 0;
  });

  it('asks GET /search in the json format and maps the results', async () => {
    standIn.setResults([
      {
        title: 'First',
        url: 'https://example.com/1',
        content: 'An excerpt.',
        publishedDate: '2024-02-03T00:00:00',
        score: 2.5,
        engine: 'bing',
      },
      { title: 'No URL', content: 'dropped' },
      { title: 'Not http', url: 'javascript:alert(1)' },
      { title: 42, url: 'https://example.com/untitled', content: 7, score: 'high' },
    ]);
    const provider = new SearxngProvider({ baseUrl: `${standIn.url}/`, timeoutMs: 5_000 });
    const results = await provider.search(request({ query: 'héllo & world', numResults: 10, type: 'neural' }));

    expect(results).toEqual([
      {
        title: 'First',
        url: 'https://example.com/1',
        snippet: 'An excerpt.',
        publishedDate: '2024-02-03T00:00:00',
        score: 2.5,
      },
      { title: 'https://example.com/untitled', url: 'https://example.com/untitled' },
    ]);
    const first = standIn.requests[0]!;
    expect(first.method).toBe('GET');
    const url = new URL(first.url, standIn.url);
    expect(url.pathname).toBe('/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'héllo & world', format: 'json', pageno: '1' });
    // The second page brings nothing new: reading stops there.
    expect(standIn.requests).toHaveLength(2);
  });

  it('gives the content excerpt as text when text is asked (SearXNG has no page text)', async () => {
    standIn.setResults([{ title: 'T', url: 'https://example.com/t', content: 'Excerpt.' }]);
    const provider = new SearxngProvider({ baseUrl: standIn.url, timeoutMs: 5_000 });
    const [result] = await provider.search(request({ includeText: true }));
    expect(result).toMatchObject({ snippet: 'Excerpt.', text: 'Excerpt.' });
  });

  it('reads pages until numResults are collected, at most 3 pages, and caps the answer', async () => {
    const provider = new SearxngProvider({ baseUrl: standIn.url, timeoutMs: 5_000 });

    const five = await provider.search(request({ numResults: 5 }));
    expect(five.map((r) => r.url)).toEqual([1, 2, 3, 4, 5].map((n) => `https://example.com/page-${n}`));
    expect(standIn.requests).toHaveLength(1);

    standIn.requests.length = 0;
    const fifteen = await provider.search(request({ numResults: 15 }));
    expect(fifteen).toHaveLength(15);
    expect(fifteen[14]!.url).toBe('https://example.com/page-15');
    expect(standIn.requests.map((r) => new URL(r.url, standIn.url).searchParams.get('pageno'))).toEqual(['1', '2']);

    standIn.requests.length = 0;
    const many = await provider.search(request({ numResults: 100 }));
    expect(many).toHaveLength(25);
    expect(standIn.requests).toHaveLength(3);
  });

  it('keeps a result repeated on a later page once', async () => {
    standIn.setResults(
      [1, 2, 2, 3].map((n) => ({ title: `R${n}`, url: `https://example.com/${n}` })),
      2,
    );
    const provider = new SearxngProvider({ baseUrl: standIn.url, timeoutMs: 5_000 });
    const results = await provider.search(request({ numResults: 10 }));
    expect(results.map((r) => r.title)).toEqual(['R1', 'R2', 'R3']);
  });

  it('answers a 500 of the instance with a 502 UPSTREAM_ERROR', async () => {
    standIn.setMode('fail');
    const provider = new SearxngProvider({ baseUrl: standIn.url, timeoutMs: 5_000 });
    const err = await failureOf(provider.search(request()));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toBe('The web search provider "searxng" failed: HTTP 500');
  });

  it('times out an instance that never answers', async () => {
    standIn.setMode('hang');
    const provider = new SearxngProvider({ baseUrl: standIn.url, timeoutMs: 200 });
    const started = Date.now();
    const err = await failureOf(provider.search(request()));
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toBe('The web search provider "searxng" failed: no answer within 200 ms');
  });

  it('answers malformed JSON with a 502', async () => {
    standIn.setMode('malformed');
    const provider = new SearxngProvider({ baseUrl: standIn.url, timeoutMs: 5_000 });
    const err = await failureOf(provider.search(request()));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toMatch(/failed: malformed response/);
  });

  it('answers a refused connection with a 502 and rejects with the caller reason when the caller aborts', async () => {
    const closed = await startSearxngStandIn();
    await closed.close();
    const down = new SearxngProvider({ baseUrl: closed.url, timeoutMs: 5_000 });
    const err = await failureOf(down.search(request()));
    expect(err.message).toBe('The web search provider "searxng" failed: connection failed (ECONNREFUSED)');

    standIn.setMode('hang');
    const provider = new SearxngProvider({ baseUrl: standIn.url, timeoutMs: 5_000 });
    const controller = new AbortController();
    const pending = provider.search(request(), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 50);
    await expect(pending).rejects.toThrow('client went away');
  });

  it('sends the credentials of the URL as Basic auth, not in the URL', async () => {
    const provider = new SearxngProvider({ baseUrl: standIn.url.replace('//', '//me:s%40cret@'), timeoutMs: 5_000 });
    await provider.search(request({ numResults: 1 }));
    expect(standIn.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('me:s@cret').toString('base64')}`);
  });
});
