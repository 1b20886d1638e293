import { Readable } from 'node:stream';
import { AppError } from '@kw/platform-errors';
import type { ChatCompletionChunk } from '@kw/platform-models';
import type { StreamTally, TokenCounts } from '../../domain/usage-estimate.js';

export interface StreamOutcome {
  /** The provider's usage, or an estimate when the stream ended without it (cut, abandoned, or never reported). */
  usage: TokenCounts & { estimated: boolean };
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
 * The usage chunk that ends a stream whose last chunk had none: the provider's usage reported
 * earlier, or the `tally`'s estimate when it reported none (some OpenAI-compatible servers).
 */
function usageChunk(last: ChatCompletionChunk | undefined, publicModel: string, tally: StreamTally): string {
  const { prompt_tokens, completion_tokens } = tally.usage();
  const chunk: ChatCompletionChunk = {
    id: last?.id ?? 'chatcmpl-usage',
    object: 'chat.completion.chunk',
    created: last?.created ?? Math.floor(Date.now() / 1000),
    model: publicModel,
    choices: [],
    usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * OpenAI's Server-Sent Events: one `data:` line per chunk (the model id rewritten to the public
 * one), a last chunk with `usage` (added when the provider's last had none) and `data: [DONE]`. `done` receives how it went, once, for the usage record:
 * also when the client went away (the stream is destroyed and the generator returns) or the
 * provider broke off, with the usage `tally` counted from the chunks relayed.
 */
export function sseStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  publicModel: string,
  signal: AbortSignal,
  tally: StreamTally,
  done: (outcome: StreamOutcome) => void,
): Readable {
  let reported = false;
  const report = (status: StreamOutcome['status']) => {
    if (reported) return;
    reported = true;
    done({ status: signal.aborted && status === 'ok' ? 'cancelled' : status, usage: tally.usage() });
  };
  async function* events(): AsyncGenerator<string> {
    let status: StreamOutcome['status'] = 'ok';
    let last: ChatCompletionChunk | undefined;
    try {
      for await (const chunk of chunks) {
        chunk.model = publicModel;
        tally.observe(chunk);
        last = chunk;
        yield `data: ${JSON.stringify(chunk)}\n\n`;
      }
      if (!last?.usage) yield usageChunk(last, publicModel, tally);
      yield 'data: [DONE]\n\n';
    } catch (err) {
      status = signal.aborted ? 'cancelled' : 'upstream_error';
      if (!signal.aborted) yield errorEvent(err);
    } finally {
      report(status);
    }
  }
  const readable = Readable.from(events(), { objectMode: false });
  // A stream destroyed before its generator started (or while it waits) still gets its record.
  readable.once('close', () => {
    if (!readable.readableEnded) setImmediate(() => report('cancelled'));
  });
  return readable;
}
