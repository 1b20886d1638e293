import { Readable } from 'node:stream';
import { AppError } from '@kw/platform-errors';
import type { ChatCompletionChunk } from '@kw/platform-models';

export interface StreamOutcome {
  usage?: { prompt_tokens: number; completion_tokens: number };
  status: 'ok' | 'upstream_error' | 'cancelled';
}

/** What a failure in the middle of a stream becomes: one OpenAI error event (the SDK raises it). */
function errorEvent(err: unknown): string {
  const appError = AppError.isAppError(err) ? err : undefined;
  return `data: ${JSON.stringify({
    error: {
      message: appError?.message ?? 'The model provider failed while streaming',
      type: 'server_error',
      code: (appError?.code ?? 'UPSTREAM_ERROR').toLowerCase(),
      param: '',
    },
  })}\n\n`;
}

/**
 * OpenAI's Server-Sent Events: one `data:` line per chunk (the model id rewritten to the public
 * one) and `data: [DONE]` at the end. `done` receives how it went, once, for the usage record.
 */
export function sseStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  publicModel: string,
  signal: AbortSignal,
  done: (outcome: StreamOutcome) => void,
): Readable {
  async function* events(): AsyncGenerator<string> {
    const outcome: StreamOutcome = { status: 'ok' };
    try {
      for await (const chunk of chunks) {
        chunk.model = publicModel;
        if (chunk.usage) outcome.usage = chunk.usage;
        yield `data: ${JSON.stringify(chunk)}\n\n`;
      }
      yield 'data: [DONE]\n\n';
    } catch (err) {
      outcome.status = signal.aborted ? 'cancelled' : 'upstream_error';
      if (!signal.aborted) yield errorEvent(err);
    } finally {
      if (signal.aborted && outcome.status === 'ok') outcome.status = 'cancelled';
      done(outcome);
    }
  }
  return Readable.from(events(), { objectMode: false });
}
