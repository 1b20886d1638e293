import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for a SearXNG instance (`GET /search?q=&format=json&pageno=N`), for tests
 * of the web search provider. Modes: `ok` answers pages of the configured results, `fail`
 * answers 500, `hang` never answers (for timeouts), `malformed` answers 200 with broken JSON.
 */
export type SearxngStandInMode = 'ok' | 'fail' | 'hang' | 'malformed';

export interface SearxngRecordedRequest {
  method: string;
  /** Path and query, e.g. `/search?q=x&format=json&pageno=1`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A result as SearXNG's json format gives it (only the fields the platform reads, plus extras). */
export type SearxngStandInResult = Record<string, unknown>;

export interface SearxngStandIn {
  /** Base URL of the instance, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  requests: SearxngRecordedRequest[];
  setMode(mode: SearxngStandInMode): void;
  /** Replaces the results served (page N is results[(N-1)*pageSize .. N*pageSize)). */
  setResults(results: SearxngStandInResult[], pageSize?: number): void;
  close(): Promise<void>;
}

/** 25 results: pages of 10, 10 and 5. */
export function defaultSearxngResults(count = 25): SearxngStandInResult[] {
  return Array.from({ length: count }, (_, i) => ({
    title: `Result ${i + 1}`,
    url: `https://example.com/page-${i + 1}`,
    content: `Excerpt of result ${i + 1}.`,
    publishedDate: `2024-01-${String((i % 28) + 1).padStart(2, '0')}T00:00:00`,
    score: Number((1 / (i + 1)).toFixed(4)),
    engine: 'duckduckgo',
    engines: ['duckduckgo'],
    category: 'general',
  }));
}

export async function startSearxngStandIn(): Promise<SearxngStandIn> {
  let mode: SearxngStandInMode = 'ok';
  let results = defaultSearxngResults();
  let pageSize = 10;
  const requests: SearxngRecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const url = new URL(req.url ?? '/', 'http://stand-in');
      if (mode === 'hang') {
        hanging.add(res);
        return;
      }
      if (mode === 'fail') {
        res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>');
        return;
      }
      if (req.method !== 'GET' || url.pathname !== '/search') {
        res.writeHead(404).end();
        return;
      }
      if (url.searchParams.get('format') !== 'json') {
        // What SearXNG answers when a format is not enabled in settings.yml.
        res.writeHead(403, { 'content-type': 'text/html' }).end('Forbidden');
        return;
      }
      if (mode === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"query": "x", "results": [{"title": ');
        return;
      }
      const page = Math.max(1, Number(url.searchParams.get('pageno') ?? '1') || 1);
      const pageResults = results.slice((page - 1) * pageSize, page * pageSize);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: url.searchParams.get('q') ?? '',
          number_of_results: results.length,
          results: pageResults,
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [],
          unresponsive_engines: [],
        }),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMode(next) {
      mode = next;
    },
    setResults(next, size = 10) {
      results = next;
      pageSize = size;
    },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
