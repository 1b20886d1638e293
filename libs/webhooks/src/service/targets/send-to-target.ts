import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { pinnedLookup } from '@kw/platform-net';
import type { CheckedTarget } from './check-target.js';
import { parseRetryAfter } from './retry-after.js';

export interface SendRequest {
  target: CheckedTarget;
  method?: 'POST';
  headers: Record<string, string>;
  body: string;
  /**
   * The whole exchange with the receiver, connecting and slow response bodies included. Default
   * 15 s. It starts when the request has its connection: time spent waiting for one of the
   * endpoint's own kept connections is bounded apart (by as much again), so a delivery is never
   * timed out by time it spent queued rather than at the receiver.
   */
  timeoutMs?: number;
  /** Extra CA certificates (PEM) trusted besides the default ones (WEBHOOKS_CA_FILE). */
  ca?: string | Buffer;
  /**
   * Keep-alive connections to this very target (TargetConnections.agentFor). Without one the
   * exchange has a connection of its own, closed after it.
   */
  agent?: https.Agent;
}

/** `secret`: nothing was sent, the endpoint's sealed signing secret or headers do not open (DeliveryAttempter). */
export type SendFailure = 'timeout' | 'connect' | 'tls' | 'redirect' | 'status' | 'refused' | 'secret';

export interface SendResult {
  ok: boolean;
  status?: number;
  durationMs: number;
  /** From Retry-After (delta-seconds or HTTP-date) whenever the receiver sent one; honoured on 429 and 503 only (honouredRetryAfter). */
  retryAfterMs?: number;
  failure?: SendFailure;
  message?: string;
  /** The first 512 characters of the response body, for the delivery log. */
  responseSnippet?: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const SNIPPET_CHARS = 512;
// Bytes of the response read before it is dropped: a receiver must not make us buffer much.
const BODY_READ_CAP = 4 * 1024;
const SENDER_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/**
 * Delivers one request to a checked target, connecting only to the addresses checkTarget
 * approved (the host name is never resolved again, so DNS rebinding cannot move the
 * delivery). The host name is still the TLS server name, so the certificate must match it.
 * Redirects are never followed: a 3xx is a failure. Never throws.
 */
export async function sendToTarget(req: SendRequest): Promise<SendResult> {
  const started = performance.now();
  if (req.target.addresses.length === 0) {
    return { ok: false, failure: 'refused', durationMs: 0, message: 'the target has no checked address' };
  }
  // A kept connection the receiver closed while it was idle fails before any answer: the
  // request never reached the receiver's application, so it goes again (the pool may hold more
  // than one such connection; a new one is made when it holds none).
  const spent = { receiverMs: 0 };
  for (let tries = 0; tries < STALE_RETRIES; tries++) {
    const outcome = await exchange(req, started, spent);
    if (!outcome.staleConnection) return outcome.result;
  }
  const durationMs = Math.round(performance.now() - started);
  return { ok: false, failure: 'connect', durationMs, message: 'every kept connection was closed by the receiver' };
}

const STALE_RETRIES = 3;

type ExchangeResult = { result: SendResult; staleConnection?: false } | { staleConnection: true };

/** `spent.receiverMs`: the time earlier exchanges of this request had a connection (added to here). */
function exchange(req: SendRequest, started: number, spent: { receiverMs: number }): Promise<ExchangeResult> {
  const elapsed = () => Math.round(performance.now() - started);
  const { target } = req;
  return new Promise<ExchangeResult>((resolve) => {
    let settled = false;
    // Where the exchange was when it failed: before TCP connect, during the TLS handshake, or after.
    let phase: 'connect' | 'tls' | 'exchange' = 'connect';
    let answered = false;
    /** `keep`: the response was read to its end, so a kept connection can serve the next delivery. */
    let timer: NodeJS.Timeout | undefined;
    let connectedAt: number | undefined;
    const stopClock = () => {
      clearTimeout(timer);
      if (connectedAt !== undefined) spent.receiverMs += performance.now() - connectedAt;
      connectedAt = undefined;
    };
    const finish = (result: Omit<SendResult, 'durationMs'>, keep = false) => {
      if (settled) return;
      settled = true;
      stopClock();
      if (!keep || !req.agent) request.destroy();
      resolve({ result: { ...result, durationMs: elapsed() } });
    };

    // Framing and routing headers are the sender's, whatever the caller (or a configured
    // authentication header) says: Host follows the checked URL, the length follows the body.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (!SENDER_HEADERS.has(name.toLowerCase())) headers[name] = value;
    headers['content-length'] = String(Buffer.byteLength(req.body));
    const literal = isIP(target.hostname) !== 0;
    let request: ClientRequest;
    try {
      request = https.request({
        method: req.method ?? 'POST',
        host: target.hostname,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        headers,
        // A pooled socket is one this target's check approved (TargetConnections is keyed by it).
        agent: req.agent ?? false,
        lookup: pinnedLookup(target.addresses),
        servername: literal ? undefined : target.hostname, // SNI must be a name (RFC 6066)
        ...(req.ca ? { secureContext: secureContextWith(req.ca) } : {}),
      });
    } catch (err) {
      // Node validates headers synchronously (e.g. a configured header value with a line break).
      resolve({ result: { ok: false, failure: 'refused', durationMs: elapsed(), message: (err as Error).message } });
      return;
    }
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Until the request has a connection (all of the endpoint's kept ones may be busy): bounded
    // apart, so the receiver's deadline below never counts time spent queued.
    timer = setTimeout(
      () => finish({ ok: false, failure: 'timeout', message: `no connection free within ${timeoutMs} ms` }),
      timeoutMs,
    );

    request.on('socket', (socket) => {
      if (settled) return;
      // The receiver's deadline runs from here; a second exchange (after a stale kept
      // connection) gets what is left of it.
      clearTimeout(timer);
      connectedAt = performance.now();
      timer = setTimeout(
        () => finish({ ok: false, failure: 'timeout', message: `no complete response within ${timeoutMs} ms` }),
        Math.max(1, timeoutMs - spent.receiverMs),
      );
      // A kept socket is connected already (and must not collect a listener per delivery).
      if (request.reusedSocket) {
        phase = 'exchange';
        return;
      }
      socket.once('connect', () => (phase = 'tls'));
      socket.once('secureConnect', () => (phase = 'exchange'));
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (request.reusedSocket && !answered && STALE_CONNECTION_CODES.has(err.code ?? '') && !settled) {
        settled = true;
        stopClock();
        request.destroy();
        resolve({ staleConnection: true });
        return;
      }
      finish({ ok: false, failure: phase === 'tls' || isTlsError(err) ? 'tls' : 'connect', message: err.message });
    });
    request.on('response', (res) => {
      answered = true;
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let read = 0;
      const done = (complete: boolean) => {
        const body = Buffer.concat(chunks).toString('utf8').slice(0, SNIPPET_CHARS);
        const common = {
          status,
          ...(body ? { responseSnippet: body } : {}),
          ...optional('retryAfterMs', parseRetryAfter(header(res.headers['retry-after']))),
        };
        if (status >= 200 && status < 300) finish({ ok: true, ...common }, complete);
        else if (status >= 300 && status < 400)
          finish({ ok: false, failure: 'redirect', message: `redirect (${status}) not followed`, ...common }, complete);
        else finish({ ok: false, failure: 'status', message: `receiver answered ${status}`, ...common }, complete);
      };
      res.on('data', (chunk: Buffer) => {
        if (read < BODY_READ_CAP) chunks.push(chunk.subarray(0, BODY_READ_CAP - read));
        read += chunk.length;
        if (read >= BODY_READ_CAP) done(false); // enough for the log; the rest is dropped with the socket
      });
      res.on('end', () => done(true));
      // The status has arrived; a connection cut while the body streams does not change it.
      res.on('aborted', () => done(false));
      res.on('error', () => done(false));
    });
    request.end(req.body);
  });
}

/** How a kept connection that the receiver closed while idle fails when it is written to. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

const TLS_ERROR_CODES = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

function isTlsError(err: NodeJS.ErrnoException): boolean {
  return typeof err.code === 'string' && TLS_ERROR_CODES.test(err.code);
}

// One secure context per extra CA bundle (in practice one: WEBHOOKS_CA_FILE), built once:
// parsing the default roots on every delivery would be wasteful.
const contexts = new Map<string, tls.SecureContext>();

function secureContextWith(ca: string | Buffer): tls.SecureContext {
  const pem = ca.toString();
  let context = contexts.get(pem);
  if (!context) {
    // `ca` replaces the default roots, so they are passed too (the extra CA is in addition).
    const getCACertificates = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
    const defaults = getCACertificates ? getCACertificates('default') : [...tls.rootCertificates];
    context = tls.createSecureContext({ ca: [...defaults, pem] });
    contexts.set(pem, context);
  }
  return context;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
