import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import type { CheckedTarget, ResolvedAddress } from './check-target.js';
import { parseRetryAfter } from './retry-after.js';

export interface SendRequest {
  target: CheckedTarget;
  method?: 'POST';
  headers: Record<string, string>;
  body: string;
  /** The whole exchange, slow response bodies included. Default 15 s. */
  timeoutMs?: number;
  /** Extra CA certificates (PEM) trusted besides the default ones (WEBHOOKS_CA_FILE). */
  ca?: string | Buffer;
}

export type SendFailure = 'timeout' | 'connect' | 'tls' | 'redirect' | 'status' | 'refused';

export interface SendResult {
  ok: boolean;
  status?: number;
  durationMs: number;
  /** From Retry-After (delta-seconds or HTTP-date) whenever the receiver sent one; meant for 429 and 503. */
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
  const elapsed = () => Math.round(performance.now() - started);
  const { target } = req;
  if (target.addresses.length === 0) {
    return { ok: false, failure: 'refused', durationMs: 0, message: 'the target has no checked address' };
  }

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    // Where the exchange was when it failed: before TCP connect, during the TLS handshake, or after.
    let phase: 'connect' | 'tls' | 'exchange' = 'connect';
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve({ ...result, durationMs: elapsed() });
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
        agent: false, // no pooled socket can outlive the check it was made under
        lookup: pinnedLookup(target.addresses),
        servername: literal ? undefined : target.hostname, // SNI must be a name (RFC 6066)
        ...(req.ca ? { secureContext: secureContextWith(req.ca) } : {}),
      });
    } catch (err) {
      // Node validates headers synchronously (e.g. a configured header value with a line break).
      resolve({ ok: false, failure: 'refused', durationMs: elapsed(), message: (err as Error).message });
      return;
    }
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(
      () => finish({ ok: false, failure: 'timeout', message: `no complete response within ${timeoutMs} ms` }),
      timeoutMs,
    );

    request.on('socket', (socket) => {
      socket.once('connect', () => (phase = 'tls'));
      socket.once('secureConnect', () => (phase = 'exchange'));
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      finish({ ok: false, failure: phase === 'tls' || isTlsError(err) ? 'tls' : 'connect', message: err.message });
    });
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let read = 0;
      const done = () => {
        const body = Buffer.concat(chunks).toString('utf8').slice(0, SNIPPET_CHARS);
        const common = {
          status,
          ...(body ? { responseSnippet: body } : {}),
          ...optional('retryAfterMs', parseRetryAfter(header(res.headers['retry-after']))),
        };
        if (status >= 200 && status < 300) finish({ ok: true, ...common });
        else if (status >= 300 && status < 400)
          finish({ ok: false, failure: 'redirect', message: `redirect (${status}) not followed`, ...common });
        else finish({ ok: false, failure: 'status', message: `receiver answered ${status}`, ...common });
      };
      res.on('data', (chunk: Buffer) => {
        if (read < BODY_READ_CAP) chunks.push(chunk.subarray(0, BODY_READ_CAP - read));
        read += chunk.length;
        if (read >= BODY_READ_CAP) done(); // enough for the log; the rest is dropped with the socket
      });
      res.on('end', done);
      // The status has arrived; a connection cut while the body streams does not change it.
      res.on('aborted', done);
      res.on('error', done);
    });
    request.end(req.body);
  });
}

/**
 * A lookup that answers with the checked addresses only, whatever DNS says now. Node asks for
 * all of them (autoSelectFamily, on by default) and tries the next when one fails to connect.
 */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const candidates =
      options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (candidates.length === 0) {
      const err: NodeJS.ErrnoException = new Error('no checked address of the requested family');
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
    } else if (options.all) {
      (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, candidates);
    } else {
      callback(null, candidates[0].address, candidates[0].family);
    }
  };
}

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
