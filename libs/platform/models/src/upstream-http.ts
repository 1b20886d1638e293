import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { abortError, parseRetryAfter, upstreamError, upstreamHttpError } from './model-errors.js';

export interface UpstreamClientOptions {
  /** Provider id, for error messages. */
  provider: string;
  /** Base URL without a trailing slash; paths are appended to it. */
  baseUrl: string;
  /** Until the response headers, and the longest silence while reading the body. */
  timeoutMs: number;
  /** Query parameters appended to every call (Azure's api-version). */
  query?: Record<string, string>;
}

export interface UpstreamCall {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Extra query parameters of this call. */
  query?: Record<string, string>;
  signal?: AbortSignal;
  /** The key sent, scrubbed from error text the provider echoes. */
  secret?: string;
}

/** Error bodies are read this far: the message is at the start. */
const ERROR_BODY_LIMIT = 64 * 1024;
/** Whole (non-streamed) answers: a few generated images in base64 fit. */
const BODY_LIMIT = 64 * 1024 * 1024;

/**
 * One provider's HTTP connection pool: node:http(s) with a keep-alive agent, so a call reuses a
 * warm (TLS) connection instead of paying a handshake, and the URL parts are parsed once.
 */
export class UpstreamClient {
  readonly provider: string;
  private readonly agent: HttpAgent;
  private readonly secure: boolean;
  private readonly hostname: string;
  private readonly port: number | undefined;
  private readonly basePath: string;
  private readonly query: string;
  private readonly timeoutMs: number;

  constructor(options: UpstreamClientOptions) {
    const url = new URL(options.baseUrl);
    this.provider = options.provider;
    this.secure = url.protocol === 'https:';
    // A free socket is closed after 15 s idle: before typical server keep-alive limits end it under us.
    const agentOptions = { keepAlive: true, scheduling: 'lifo' as const, timeout: 15_000 };
    this.agent = this.secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = url.port ? Number(url.port) : undefined;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.query = new URLSearchParams(options.query ?? {}).toString();
    this.timeoutMs = options.timeoutMs;
  }

  /** Sends the call; resolves at 2xx response headers, rejects with a classified error otherwise. */
  async open(call: UpstreamCall): Promise<UpstreamExchange> {
    const exchange = await this.send(call);
    const res = exchange.response;
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return exchange;
    const body = await exchange.text(ERROR_BODY_LIMIT, true).catch(() => '');
    const retryAfter = parseRetryAfter(header(res, 'retry-after'), header(res, 'retry-after-ms'));
    throw upstreamHttpError(this.provider, status, body, retryAfter, call.secret);
  }

  /** A whole JSON answer. */
  async json<T>(call: UpstreamCall): Promise<T> {
    const exchange = await this.open(call);
    const text = await exchange.text(BODY_LIMIT);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw upstreamError(this.provider, 'the answer is not valid JSON', { retryable: true });
    }
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  private send(call: UpstreamCall): Promise<UpstreamExchange> {
    const { signal } = call;
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const query = call.query ? new URLSearchParams(call.query).toString() : '';
    const search = this.query && query ? `${this.query}&${query}` : this.query || query;
    const headers =
      call.body === undefined
        ? call.headers
        : { ...call.headers, 'content-length': String(Buffer.byteLength(call.body)) };
    const req = (this.secure ? httpsRequest : httpRequest)({
      hostname: this.hostname,
      port: this.port,
      path: `${this.basePath}${call.path}${search ? `?${search}` : ''}`,
      method: call.method,
      headers,
      agent: this.agent,
    });
    const exchange = new UpstreamExchange(this.provider, req, this.timeoutMs, signal);
    return new Promise((resolve, reject) => {
      req.on('response', (res) => {
        exchange.received(res);
        resolve(exchange);
      });
      // Kept for the whole exchange: an 'error' without a listener would crash the process.
      req.on('error', (err) => {
        exchange.dispose();
        reject(exchange.failure ?? connectionError(this.provider, err));
      });
      req.end(call.body);
    });
  }
}

/**
 * One request/response: owns the timer (per-attempt deadline, then idle gap), the abort listener,
 * and the socket's fate (back to the pool when the body was read to its end, destroyed otherwise).
 */
export class UpstreamExchange {
  /** Why the exchange was cut (timeout or abort), to report instead of the socket error it causes. */
  failure: Error | undefined;
  private res: IncomingMessage | undefined;
  private readonly timer: NodeJS.Timeout;
  private finished = false;
  private disposed = false;

  constructor(
    private readonly provider: string,
    private readonly req: ClientRequest,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(this.onTimeout, timeoutMs);
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get response(): IncomingMessage {
    if (!this.res) throw new Error('no response yet');
    return this.res;
  }

  received(res: IncomingMessage): void {
    this.res = res;
    this.timer.refresh();
  }

  /**
   * The body's chunks as they arrive; throws the classified failure when it is cut. The idle
   * timer restarts at each chunk, so the time a slow consumer takes counts as silence too.
   */
  async *chunks(): AsyncGenerator<Buffer> {
    const res = this.response;
    try {
      for await (const chunk of res) {
        this.timer.refresh();
        yield chunk as Buffer;
      }
      this.finished = true;
    } catch {
      throw (
        this.failure ??
        upstreamError(this.provider, 'the connection closed before the answer was complete', { retryable: true })
      );
    } finally {
      this.dispose();
    }
  }

  /** The whole body as text, up to `limit` bytes (beyond: an error, or a cut when `truncate`). */
  async text(limit: number, truncate = false): Promise<string> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.chunks()) {
      if (size + chunk.length > limit) {
        if (truncate) break;
        throw upstreamError(this.provider, `the answer is larger than ${limit} bytes`);
      }
      parts.push(chunk);
      size += chunk.length;
    }
    return Buffer.concat(parts, size).toString('utf8');
  }

  /** Stops the timer and the abort listener; a body not read to its end costs the socket. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    if (!this.finished) this.req.destroy();
  }

  private readonly onTimeout = (): void => {
    const detail = this.res
      ? `no data for ${this.timeoutMs} ms while reading the answer`
      : `no answer within ${this.timeoutMs} ms`;
    this.cut(upstreamError(this.provider, detail, { retryable: true }));
  };

  private readonly onAbort = (): void => {
    this.cut(abortError(this.signal?.reason));
  };

  private cut(reason: Error): void {
    this.failure ??= reason;
    this.disposed = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.req.destroy(this.failure);
  }
}

function header(res: IncomingMessage, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Connection-level failure: the code says what happened (ECONNREFUSED...), the message may hold addresses. */
function connectionError(provider: string, err: Error): Error {
  const code = (err as NodeJS.ErrnoException).code;
  return upstreamError(provider, `connection error${code ? ` (${code})` : ''}`, { retryable: true });
}

/**
 * The generator as a one-shot iterable whose return() also releases the exchange: a generator
 * never started runs no finally block, and the connection must not wait for its timeout.
 */
export function releasing<T>(generator: AsyncGenerator<T>, exchange: UpstreamExchange): AsyncIterable<T> {
  const iterator: AsyncIterator<T> = {
    next: () => generator.next(),
    return: (value?: unknown) => {
      exchange.dispose();
      return generator.return(value as T);
    },
    throw: (err?: unknown) => {
      exchange.dispose();
      return generator.throw(err);
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}
