import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { startExaStandIn, type ExaStandIn } from '../../../../test/support/stand-ins/exa-stand-in.js';
import { ExaProvider, type WebSearchRequest } from './index.js';

const request = (over: Partial<WebSearchRequest> = {}): WebSearchRequest => ({
  query: 'kw platform',
  numResults: 3,
  type: 'neural',
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

describe('ExaProvider', () => {
  let standIn: ExaStandIn;
  let provider: ExaProvider;
  beforeAll(async () => {
    standIn = await startExaStandIn();
    provider = new ExaProvider({ apiKey: standIn.apiKey, baseUrl: standIn.url, timeoutMs: 5_000 });
  });
  afterAll(async () => {
    await standIn.close();
  });
  afterEach(() => {
    standIn.setMode('ok');
    standIn.setResults(undefined);
    standIn.requests.length = 0;
  });

  it('posts the search with the API key header and maps the results', async () => {
    const results = await provider.search(request({ query: 'vector databases', numResults: 3, type: 'keyword' }));

    const sent = standIn.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/search');
    expect(sent.headers['x-api-key']).toBe(standIn.apiKey);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({ query: 'vector databases', numResults: 3, type: 'keyword' });
    expect(results).toEqual([
      {
        title: 'Article 1',
        url: 'https://example.org/article-1',
        snippet: 'Highlight of article 1.',
        publishedDate: '2024-05-01T00:00:00.000Z',
        score: 0.9,
      },
      {
        title: 'Article 2',
        url: 'https://example.org/article-2',
        snippet: 'Summary of article 2.',
        publishedDate: '2024-05-01T00:00:00.000Z',
        score: 0.89,
      },
      {
        title: 'Article 3',
        url: 'https://example.org/article-3',
        snippet: 'Highlight of article 3.',
        publishedDate: '2024-05-01T00:00:00.000Z',
        score: 0.88,
      },
    ]);
  });

  it('asks for the page text when text is wanted', async () => {
    const [first] = await provider.search(request({ includeText: true, numResults: 1 }));
    expect(JSON.parse(standIn.requests[0]!.body)).toMatchObject({ contents: { text: { maxCharacters: 5000 } } });
    expect(first!.text).toBe('Full text of article 1.');
  });

  it('caps the results to numResults and drops results without a URL', async () => {
    standIn.setResults([
      { title: 'No URL', text: 'x' },
      { title: 'A', url: 'https://a.example/' },
      { title: 'B', url: 'https://b.example/', highlights: [] },
      { title: 'C', url: 'https://c.example/' },
      { title: 'D', url: 'https://d.example/' },
    ]);
    const results = await provider.search(request({ numResults: 2 }));
    expect(results).toEqual([
      { title: 'A', url: 'https://a.example/' },
      { title: 'B', url: 'https://b.example/' },
    ]);
  });

  it('answers a 500 with a 502 UPSTREAM_ERROR that never contains the key', async () => {
    standIn.setMode('fail');
    const err = await failureOf(provider.search(request()));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toBe('The web search provider "exa" failed: HTTP 500');
    expect(JSON.stringify(err.toJSON())).not.toContain(standIn.apiKey);
    expect(err.message).not.toContain(standIn.apiKey);
  });

  it('answers a refused key with a 502', async () => {
    const wrong = new ExaProvider({ apiKey: 'not-the-key-987', baseUrl: standIn.url, timeoutMs: 5_000 });
    const err = await failureOf(wrong.search(request()));
    expect(err.message).toBe('The web search provider "exa" failed: HTTP 401');
    expect(err.message).not.toContain('not-the-key-987');
  });

  it('times out an API that never answers', async () => {
    standIn.setMode('hang');
    const slow = new ExaProvider({ apiKey: standIn.apiKey, baseUrl: standIn.url, timeoutMs: 200 });
    const err = await failureOf(slow.search(request()));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toBe('The web search provider "exa" failed: no answer within 200 ms');
    expect(err.message).not.toContain(standIn.apiKey);
  });

  it('answers malformed JSON and an answer without results with a 502', async () => {
    standIn.setMode('malformed');
    const err = await failureOf(provider.search(request()));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toBe('The web search provider "exa" failed: malformed response (not JSON)');
    expect(err.message).not.toContain(standIn.apiKey);

    standIn.setMode('ok');
    standIn.setResults('nope' as never);
    const shape = await failureOf(provider.search(request()));
    expect(shape.message).toBe('The web search provider "exa" failed: malformed response (no results list)');
  });
});
