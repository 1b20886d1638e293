import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, badRequest } from '@kw/platform-errors';
import { withDeadline } from './deadline.js';
import { errorOf, errorReply } from './error-reply.js';
import type { Logger } from './logger.js';
import { messageSize, payloadTooLarge } from './message-size.js';
import type { Headers, Message, Reply, RequestOptions } from './transport.js';

/**
 * Requests and replies larger than one message (the adapter's maxPayload: NATS's max_payload,
 * 1 MiB by default) travel in chunks, the same way on both adapters:
 * - the side holding the payload serves it on a unique subject `_kw.chunks.<uuid>` (under the
 *   transport's subject prefix, like every subject) and sends the first chunk with the real
 *   headers plus kw-chunks (count), kw-chunk-bytes (total) and kw-chunk-subject;
 * - the other side fetches chunks 1..n-1 by request (the index as payload), a few at a time,
 *   reassembles them and goes on as if one message had arrived (kw-chunk* headers removed);
 * - the chunk server stops once every chunk was fetched, when the exchange ends, or after a
 *   time without fetches, so nothing is left subscribed.
 * ServiceClient and serve never see it. Events (publish) stay limited to one message.
 */

/** Largest request or reply once reassembled: bounds the memory one exchange can take. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
export const CHUNKS_HEADER = 'kw-chunks';
export const CHUNK_BYTES_HEADER = 'kw-chunk-bytes';
export const CHUNK_SUBJECT_HEADER = 'kw-chunk-subject';
/**
 * How long a reply's chunks stay served without a fetch, and how long a handler waits for one
 * chunk of a request: the other side fetches at once, so this only bounds a vanished peer.
 */
export const CHUNK_IDLE_TIMEOUT_MS = 10_000;

const CHUNK_SUBJECT = /^_kw\.chunks\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Fetches in flight per message: hides round trips without queueing megabytes on the connection. */
const FETCH_WINDOW = 4;
/** Kept free under maxPayload besides the headers, should the wire frame a message slightly bigger. */
const SLACK_BYTES = 1024;

/** What an adapter provides for chunking: one message each way. Subjects are without the prefix. */
export interface Wire {
  readonly maxPayload: number;
  /** Sends one message that fits and resolves with the reply as received (kw-error not read); rejects with 503/504 AppErrors. */
  send(subject: string, message: Message, timeoutMs: number, service: string): Promise<Message>;
  /** Answers every request on a unique subject (no queue group); returns how to stop. */
  listen(subject: string, respond: (message: Message) => Reply): () => void;
}

/** What to send for a payload, and the chunk server behind it (if any). */
export interface Outgoing {
  message: Message;
  close(): void;
  /** Resolves when the chunk server has stopped (at once for a message sent whole). */
  closed: Promise<void>;
}

let openServers = 0;

/** Chunk servers currently subscribed in this process (both adapters), for tests and diagnostics. */
export function openChunkServers(): number {
  return openServers;
}

/** Chunk size for a payload sent with `headers`; undefined when the headers leave less than half a message. */
function chunkSize(maxPayload: number, headers: Headers, total: number): number | undefined {
  const first = {
    ...headers,
    [CHUNKS_HEADER]: String(total),
    [CHUNK_BYTES_HEADER]: String(total),
    [CHUNK_SUBJECT_HEADER]: `_kw.chunks.${randomUUID()}`,
  };
  const size = maxPayload - messageSize(new Uint8Array(0), first) - SLACK_BYTES;
  return size >= maxPayload / 2 ? size : undefined;
}

/** Whether a payload can be sent at all: whole, or in chunks within MAX_MESSAGE_BYTES. */
export function sendable(maxPayload: number, data: Uint8Array, headers: Headers = {}): boolean {
  if (messageSize(data, headers) <= maxPayload) return true;
  return data.byteLength <= MAX_MESSAGE_BYTES && chunkSize(maxPayload, headers, data.byteLength) !== undefined;
}

/**
 * The message to send for a payload: itself when it fits, else its first chunk, the rest served
 * until fetched or `idleMs` pass without a fetch. Undefined when it is not sendable().
 */
export function outgoing(wire: Wire, data: Uint8Array, headers: Headers, idleMs: number): Outgoing | undefined {
  const maxPayload = wire.maxPayload;
  if (messageSize(data, headers) <= maxPayload)
    return { message: { data, headers }, close: () => undefined, closed: Promise.resolve() };
  if (data.byteLength > MAX_MESSAGE_BYTES) return undefined;
  const size = chunkSize(maxPayload, headers, data.byteLength);
  if (size === undefined) return undefined;
  const subject = `_kw.chunks.${randomUUID()}`;
  const count = Math.ceil(data.byteLength / size);
  const server = serveChunks(wire, subject, data, size, count, idleMs);
  const first = {
    ...headers,
    [CHUNKS_HEADER]: String(count),
    [CHUNK_BYTES_HEADER]: String(data.byteLength),
    [CHUNK_SUBJECT_HEADER]: subject,
  };
  return { message: { data: data.subarray(0, size), headers: first }, ...server };
}

function serveChunks(
  wire: Wire,
  subject: string,
  data: Uint8Array,
  size: number,
  count: number,
  idleMs: number,
): Pick<Outgoing, 'close' | 'closed'> {
  const fetched = new Set<number>();
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const close = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    stop();
    openServers--;
    resolveClosed();
  };
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(close, idleMs);
  };
  const stop = wire.listen(subject, (message) => {
    const index = Number(Buffer.from(message.data).toString('latin1'));
    if (!Number.isSafeInteger(index) || index < 1 || index >= count)
      return errorReply(badRequest(`No chunk ${index} on ${subject}`));
    fetched.add(index);
    // Stop before answering the last chunk: once the peer has it, the subject is gone.
    if (fetched.size === count - 1) close();
    else arm();
    return { data: data.subarray(index * size, Math.min((index + 1) * size, data.byteLength)) };
  });
  openServers++;
  arm();
  return { close, closed };
}

/** Where a chunked message came from, for the errors of fetching its chunks. */
interface Origin {
  /** The subject of the exchange, named in a 413. */
  subject: string;
  /** Who holds the chunks, named in a 503/504. */
  service: string;
  timeoutMs: number;
}

/**
 * The whole message a first chunk stands for, fetched from its chunk subject; a message that
 * came whole as is. Rejects with 413 above MAX_MESSAGE_BYTES (before fetching anything), with the
 * fetch's AppError, or with a plain Error for a malformed chunked message.
 */
export async function reassemble(wire: Wire, message: Message, origin: Origin): Promise<Message> {
  const {
    [CHUNKS_HEADER]: countHeader,
    [CHUNK_BYTES_HEADER]: totalHeader,
    [CHUNK_SUBJECT_HEADER]: subject,
    ...headers
  } = message.headers;
  if (countHeader === undefined) return message;
  const count = Number(countHeader);
  const total = Number(totalHeader);
  const size = message.data.byteLength;
  if (Number.isSafeInteger(total) && total > MAX_MESSAGE_BYTES)
    throw payloadTooLarge(origin.subject, MAX_MESSAGE_BYTES);
  if (
    !Number.isSafeInteger(count) ||
    count < 2 ||
    !Number.isSafeInteger(total) ||
    size === 0 ||
    Math.ceil(total / size) !== count ||
    !CHUNK_SUBJECT.test(subject ?? '')
  ) {
    throw new Error(
      `malformed chunked message on ${origin.subject}: ${CHUNKS_HEADER}=${countHeader} ${CHUNK_BYTES_HEADER}=${totalHeader} first chunk ${size} bytes`,
    );
  }
  const data = new Uint8Array(total);
  data.set(message.data);
  let next = 1;
  let failed = false;
  const fetchSome = async () => {
    while (next < count && !failed) {
      const index = next++;
      try {
        const part = await wire.send(
          subject,
          { data: Buffer.from(String(index), 'latin1'), headers: {} },
          origin.timeoutMs,
          origin.service,
        );
        const error = errorOf(part.headers);
        if (error) throw error;
        const expected = Math.min(size, total - index * size);
        if (part.data.byteLength !== expected)
          throw new Error(
            `chunk ${index} on ${origin.subject} has ${part.data.byteLength} bytes, expected ${expected}`,
          );
        data.set(part.data, index * size);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_WINDOW, count - 1) }, fetchSome));
  return { data, headers };
}

/**
 * request() of both adapters: sends the payload whole or in chunks, waits for the reply, and
 * reassembles it if it came in chunks. Each step (the reply, each chunk) gets the request's
 * timeout; rejects only with AppErrors, as the port promises.
 */
export async function requestOverWire(
  wire: Wire,
  subject: string,
  data: Uint8Array,
  options: RequestOptions,
  logger: Logger,
): Promise<Message> {
  const service = options.service ?? subject;
  if (data.byteLength > MAX_MESSAGE_BYTES) throw payloadTooLarge(subject, MAX_MESSAGE_BYTES);
  const out = outgoing(wire, data, withDeadline(options.headers ?? {}, options.timeoutMs), options.timeoutMs);
  if (!out) throw payloadTooLarge(subject, wire.maxPayload);
  let raw: Message;
  try {
    raw = await wire.send(subject, out.message, options.timeoutMs, service);
  } finally {
    // The handler fetched every chunk before it ran: whatever is left is of no use.
    out.close();
  }
  let reply: Message;
  try {
    reply = await reassemble(wire, raw, { subject, service, timeoutMs: options.timeoutMs });
  } catch (err) {
    if (AppError.isAppError(err)) throw err;
    const errorId = randomUUID();
    logger.error({ subject, errorId, err }, 'chunked reply unreadable');
    throw new AppError({
      status: 500,
      code: ErrorCode.INTERNAL_ERROR,
      message: 'Internal error',
      details: { errorId },
    });
  }
  const error = errorOf(reply.headers);
  if (error) throw error;
  return reply;
}
