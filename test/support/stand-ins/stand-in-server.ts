import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How a stand-in answers its next requests:
 * - `ok`: the scripted answer;
 * - `status-400` / `status-401` / `status-500`: that status with the wire format's error body;
 * - `status-429`: 429 with `Retry-After` (ModeOptions.retryAfterSeconds, default 1);
 * - `hang`: never answers;
 * - `malformed-stream`: a valid first event, then a data line that is not JSON;
 * - `close-mid-stream`: a valid first event, then the socket is destroyed;
 * - `stall-mid-stream`: a valid first event, then silence;
 * - `error-event`: a valid first event, then the wire format's in-stream error, echoing the key received;
 * - `no-usage` (OpenAI wire format): the scripted answer without `usage`, streamed or not, as many
 *   Ollama, vLLM and LM Studio builds answer.
 * The mid-stream modes send a partial JSON body to a non-streaming request.
 */
export type StandInMode =
  | 'ok'
  | 'status-400'
  | 'status-401'
  | 'status-429'
  | 'status-500'
  | 'hang'
  | 'malformed-stream'
  | 'close-mid-stream'
  | 'stall-mid-stream'
  | 'error-event'
  | 'no-usage';

export interface ModeOptions {
  /** The mode applies to this many requests, then the stand-in answers `ok` again. Default: all. */
  times?: number;
  retryAfterSeconds?: number;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it is not JSON; undefined when empty). */
  body: any;
  /** The client's port: equal ports for two requests mean one kept-alive connection. */
  remotePort: number;
}

export interface StandIn {
  /** The base URL a provider configuration points at. */
  url: string;
  requests: RecordedRequest[];
  setMode(mode: StandInMode, options?: ModeOptions): void;
  /** Requests the client closed before the answer ended. */
  aborted(): number;
  close(): Promise<void>;
}

export interface Exchange {
  request: RecordedRequest;
  res: ServerResponse;
  mode: StandInMode;
  retryAfterSeconds: number;
  /** Destroys the connection on purpose (not counted as a client abort). */
  cut(): void;
}

/** A loopback node:http server recording requests, with a run-time switchable failure mode. */
export async function startStandIn(
  basePath: string,
  handle: (exchange: Exchange) => void | Promise<void>,
): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  let mode: StandInMode = 'ok';
  let remaining = Infinity;
  let retryAfterSeconds = 1;
  let aborted = 0;

  const server = createServer((req, res) => {
    let cutOnPurpose = false;
    res.on('close', () => {
      if (!res.writableFinished && !cutOnPurpose) aborted++;
    });
    void readBody(req).then(async (text) => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: parseBody(text),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(request);
      const current = remaining > 0 ? mode : 'ok';
      if (remaining > 0 && --remaining === 0) mode = 'ok';
      await handle({
        request,
        res,
        mode: current,
        retryAfterSeconds,
        cut: () => {
          cutOnPurpose = true;
          res.socket?.destroy();
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    setMode(next, options = {}) {
      mode = next;
      remaining = options.times ?? Infinity;
      retryAfterSeconds = options.retryAfterSeconds ?? 1;
    },
    aborted: () => aborted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Starts an SSE answer; `write` sends one event and yields to the event loop, so events arrive apart. */
export function startSse(res: ServerResponse): (event: string) => Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (event) =>
    new Promise<void>((resolve) => {
      res.write(event);
      setImmediate(resolve);
    });
}

/** The words of a text: the stand-ins' token count. */
export function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Text pieces as a model streams them: word by word, spaces kept. */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [''];
}

/** A 1x1 transparent PNG. */
export const TINY_PNG_B64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
