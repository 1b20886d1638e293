import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * The events of an embed answer (docs/chat.md#embed-chat), each an SSE `event:` with one JSON
 * `data:` line:
 * - `conversation`: `{conversationId, stateless, expert?: {id, name, routed}}` first;
 * - `delta`: `{text}`, the answer as it is written;
 * - `tool`: `{id, name, status: started | ok | error, error?}` around each tool call;
 * - `question`: `{resumeToken, expiresAt, questions}`: the turn pauses (answer with /embed/answer);
 * - `done`: `{messageId, conversationId, finishReason, usage}` last;
 * - `error`: `{error: {code, message}}` when the turn fails after the stream began.
 */
export type EmbedEvent =
  | {
      event: 'conversation';
      data: { conversationId: string; stateless: boolean; expert?: { id: string; name: string; routed: boolean } };
    }
  | { event: 'delta'; data: { text: string } }
  | { event: 'tool'; data: { id: string; name: string; status: 'started' | 'ok' | 'error'; error?: string } }
  | {
      event: 'question';
      data: { resumeToken: string; expiresAt: string; questions: unknown[] };
    }
  | {
      event: 'done';
      data: {
        messageId: string;
        conversationId: string;
        finishReason: string;
        usage: { inputTokens: number; outputTokens: number; modelCalls: number };
      };
    }
  | { event: 'error'; data: { error: { code: string; message: string } } };

export interface EventSink {
  send(event: EmbedEvent): void;
  end(): void;
}

/** How often an open stream sends a keep-alive comment. */
export const KEEP_ALIVE_MS = 15_000;

/** Starts the event stream on the reply; headers go out with the first event. */
export function openEventStream(
  reply: FastifyReply,
  headers: Record<string, string> = {},
  keepAliveMs = KEEP_ALIVE_MS,
): EventSink {
  const out = new PassThrough();
  void reply
    .status(200)
    .headers({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      ...headers,
    })
    .send(out);
  const open = () => !out.writableEnded && !out.destroyed;
  // A comment line while the turn works (a model thinking, a slow tool), so a client can tell a
  // quiet answer from a dead connection (the widget gives up after 30 s without a byte).
  const keepAlive = setInterval(() => {
    if (open()) out.write(': keep-alive\n\n');
  }, keepAliveMs);
  keepAlive.unref();
  out.once('close', () => clearInterval(keepAlive));
  return {
    send(event) {
      if (open()) out.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
    },
    end() {
      clearInterval(keepAlive);
      if (open()) out.end();
    },
  };
}
