import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the Exa API (`POST /search`, key in `x-api-key`), for tests of the web
 * search provider. Modes: `ok` answers `numResults` results (text only when `contents.text` was
 * asked), `fail` answers 500 with a body that echoes the API key received (so tests can prove
 * the key never reaches an error message), `hang` never answers, `malformed` answers 200 with
 * broken JSON. A request without the expected key is answered 401, as Exa does.
 */
export type ExaStandInMode = 'ok' | 'fail' | 'hang' | 'malformed';

export interface ExaRecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The raw request body (JSON text). */
  body: string;
}

export type ExaStandInResult = Record<string, unknown>;

export interface ExaStandIn {
  /** Base URL of the API, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The API key the stand-in accepts. */
  apiKey: string;
  requests: ExaRecordedRequest[];
  setMode(mode: ExaStandInMode): void;
  /** Serves exactly these results (all of them, whatever `numResults` asked) instead of generated ones; undefined restores generation. */
  setResults(results: ExaStandInResult[] | undefined): void;
  close(): Promise<void>;
}

function generatedResult(i: number, withText: boolean): ExaStandInResult {
  return {
    id: `https://example.org/article-${i + 1}`,
    title: `Article ${i + 1}`,
    url: `https://example.org/article-${i + 1}`,
    publishedDate: '2024-05-01T00:00:00.000Z',
    author: 'Stand-in',
    score: Number((0.9 - i * 0.01).toFixed(4)),
    ...(withText ? { text: `Full text of article ${i + 1}.` } : {}),
    ...(i % 2 === 0 ? { highlights: [`Highlight of article ${i + 1}.`] } : { summary: `Summary of article ${i + 1}.` }),
  };
}

export async function startExaStandIn(options: { apiKey?: string } = {}): Promise<ExaStandIn> {
  const apiKey = options.apiKey ?? 'exa-stand-in-key-0123456789';
  let mode: ExaStandInMode = 'ok';
  let fixed: ExaStandInResult[] | undefined;
  const requests: ExaRecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (mode === 'hang') {
        hanging.add(res);
        return;
      }
      if (mode === 'fail') {
        json(res, 500, { error: `internal error while serving key ${String(req.headers['x-api-key'])}` });
        return;
      }
      if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://stand-in').pathname !== '/search') {
        json(res, 404, { error: 'Not found' });
        return;
      }
      if (req.headers['x-api-key'] !== apiKey) {
        json(res, 401, { error: 'Invalid API key' });
        return;
      }
      if (mode === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"requestId": "r1", "results": [');
        return;
      }
      let request: { query?: unknown; numResults?: unknown; contents?: { text?: unknown } };
      try {
        request = JSON.parse(body) as typeof request;
      } catch {
        json(res, 400, { error: 'Invalid JSON' });
        return;
      }
      const count = typeof request.numResults === 'number' ? request.numResults : 10;
      const withText = Boolean(request.contents?.text);
      const results = fixed ?? Array.from({ length: count }, (_, i) => generatedResult(i, withText));
      json(res, 200, { requestId: `req-${requests.length}`, resolvedSearchType: 'neural', results });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    setMode(next) {
      mode = next;
    },
    setResults(next) {
      fixed = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
