import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { ErrorResponder } from './error-responder.js';

/** How long receiving a request may take, in Node's terms (docs/operations.md, "Slow clients"). */
export interface ReceiveTimeouts {
  /** The whole request, line, headers and body (`requestTimeout`). */
  requestMs: number;
  /** The request line and headers (`headersTimeout`). */
  headersMs: number;
}

/**
 * Longer than the idle timeouts of the usual load balancers (60 s), so that they, not the
 * gateway, close an idle kept-alive connection: the other way round, a request sent just as the
 * gateway closes it is lost (ECONNRESET). An idle connection holds a socket, no route's slot.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** Node checks the two receive timeouts on this period; its default (30 s) would let a short one run long. */
const MAX_CHECK_INTERVAL_MS = 30_000;

/**
 * Fastify options that bound how long receiving a request may take. Only receiving: Node stops
 * counting once the request is complete, so an answer that takes long or streams for long (SSE,
 * MCP, a slow model call) is never cut; the socket timeout (`connectionTimeout`) stays off for
 * the same reason.
 */
export function receiveTimeoutOptions(
  timeouts: ReceiveTimeouts,
): Pick<FastifyHttpOptions<Server>, 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout' | 'http'> {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: 0,
    http: {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      // Each timeout is enforced at most a quarter of itself late.
      connectionsCheckingInterval: Math.min(
        MAX_CHECK_INTERVAL_MS,
        Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4),
      ),
    },
  };
}

/** The way to answer the request whose body a socket is receiving, if it is watched. */
const receiving = new WeakMap<Socket, (message: string) => void>();

/**
 * Answers Node's `requestTimeout` (a request still not received whole) in the shape of the
 * request's route, through its reply, when the socket is receiving a body this module watches:
 * true then; false when the caller must answer on the socket itself (headers never completed).
 */
export function answerReceiveTimeout(socket: Socket): boolean {
  const answer = receiving.get(socket);
  answer?.('The request was not received in time');
  return answer !== undefined;
}

/** How a request body must keep arriving (docs/operations.md, "Slow clients"). */
export interface BodyPace {
  /** No byte for this long is a 408 (`BODY_IDLE_TIMEOUT_MS`). */
  idleMs: number;
  /**
   * Once the client has been sending for `idleMs`, fewer bytes than this per second on average
   * is a 408 (`BODY_MIN_BYTES_PER_SECOND`; 0: any pace that is not idle).
   */
  minBytesPerSecond: number;
}

/**
 * A request body that goes idle (no byte for `idleMs`), or that trickles below
 * `minBytesPerSecond` on average once its client has been sending for `idleMs`, is answered 408
 * REQUEST_TIMEOUT, `Connection: close`, and its connection closed: a client that stops sending
 * mid-body, or sends a byte every few seconds, would otherwise hold the connection, and whatever
 * the route holds while it reads, until the whole request's timeout. Only the client's time
 * counts: bytes that the route has not read yet count as progress, and time spent while they
 * wait is not the client's (a route slower than its client, blob storage applying
 * backpressure, is not the client's fault).
 */
export function installBodyIdleTimeout(fastify: FastifyInstance, pace: BodyPace, responder: ErrorResponder): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (hasBody(request.raw)) watchBody(request, reply, pace, responder);
    done();
  });
}

function hasBody(raw: IncomingMessage): boolean {
  return raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
}

function watchBody(request: FastifyRequest, reply: FastifyReply, pace: BodyPace, responder: ErrorResponder): void {
  const { idleMs, minBytesPerSecond } = pace;
  const raw = request.raw;
  const socket = raw.socket;
  // The parser reads the socket itself (no 'data' events there, and one on the request would
  // consume the body): what Node counts as read tells whether bytes arrived.
  const firstByte = socket.bytesRead;
  let bytesRead = firstByte;
  let lastProgress = Date.now();
  let lastCheck = lastProgress;
  /** Time the route was waiting for the client (nothing unread), since the watch began. */
  let clientMs = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = Math.max(25, Math.floor(idleMs / 4));

  const stop = () => {
    clearTimeout(timer);
    if (receiving.get(socket) === answer) receiving.delete(socket);
    raw.off('end', stop);
    raw.off('close', stop);
  };
  const answer = (message: string) => {
    stop();
    // Destroying the request closes its connection and tells a route still reading the body
    // that it was aborted (the connection's close alone reaches no request already answered).
    // An answer under way (or sent, the body left to drain) cannot become a 408: only that.
    if (reply.sent || reply.raw.headersSent) return void raw.destroy();
    reply.raw.once('close', () => raw.destroy());
    void reply.header('connection', 'close');
    responder.send(request, reply, new AppError({ status: 408, code: ErrorCode.REQUEST_TIMEOUT, message }));
  };
  const check = () => {
    if (raw.complete || socket.destroyed) return stop();
    const now = Date.now();
    const waiting = raw.readableLength > 0;
    if (!waiting) clientMs += now - lastCheck;
    lastCheck = now;
    if (socket.bytesRead !== bytesRead || waiting) {
      bytesRead = socket.bytesRead;
      lastProgress = now;
    } else if (now - lastProgress >= idleMs) {
      return answer(`No part of the request body arrived for ${idleMs} ms`);
    }
    if (minBytesPerSecond > 0 && clientMs >= idleMs && (bytesRead - firstByte) * 1000 < minBytesPerSecond * clientMs)
      return answer(`The request body arrived slower than ${minBytesPerSecond} bytes per second`);
    timer = setTimeout(check, tick);
  };

  receiving.set(socket, answer);
  raw.once('end', stop);
  raw.once('close', stop);
  timer = setTimeout(check, tick);
}
