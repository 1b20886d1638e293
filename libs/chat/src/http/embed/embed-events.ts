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

/** Starts the event stream on the reply; headers go out with the first event. */
export function openEventStream(reply: FastifyReply, headers: Record<string, string> = {}): EventSink {
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
  return {
    send(event) {
      if (!out.writableEnded) out.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
    },
    end() {
      if (!out.writableEnded) out.end();
    },
  };
}
