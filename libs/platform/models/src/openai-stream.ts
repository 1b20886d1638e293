import { messageOf, truncate, upstreamError } from './model-errors.js';
import { scrubSecret } from './scrub-secret.js';
import { MAX_EVENT_CHARS, SseParser } from './sse.js';
import type { UpstreamExchange } from './upstream-http.js';
import type { ChatCompletionChunk } from './wire.js';

/**
 * OpenAI chunks from an SSE body, passed through as parsed. Ends at `[DONE]` (then reads the
 * body to its end so the connection returns to the pool). `usage` is on the chunks where the
 * provider put it, and nowhere when it reported none (many Ollama, vLLM and LM Studio builds):
 * never invented as zeros, so the caller can tell and estimate. `secret` is the key sent, scrubbed
 * from what an error event says (providers such as OpenRouter echo request details in it).
 */
export async function* readOpenAiStream(
  exchange: UpstreamExchange,
  provider: string,
  secret: string | undefined,
): AsyncGenerator<ChatCompletionChunk> {
  const parser = new SseParser();
  let done = false;
  try {
    for await (const bytes of exchange.chunks()) {
      if (done) continue;
      const events = parser.push(bytes);
      if (parser.buffered > MAX_EVENT_CHARS) throw upstreamError(provider, 'malformed stream: an event too large');
      for (let i = 0; i < events.length && !done; i++) {
        const data = events[i].data;
        if (data === '[DONE]') {
          done = true;
          break;
        }
        yield parse(data, provider, secret);
      }
    }
  } catch (err) {
    // After [DONE] the answer is whole: a connection that lingers and times out changes nothing.
    if (done) return;
    throw err;
  }
  // A last `data: [DONE]` without its blank line still ends the stream properly.
  if (!done && parser.end().some((e) => e.data === '[DONE]')) return;
  if (!done) throw upstreamError(provider, 'the stream ended before [DONE]');
}

function parse(data: string, provider: string, secret: string | undefined): ChatCompletionChunk {
  let chunk: ChatCompletionChunk & { error?: unknown };
  try {
    chunk = JSON.parse(data);
  } catch {
    throw upstreamError(provider, 'malformed stream: a data line is not JSON');
  }
  // OpenRouter and others report a failure mid-stream as {error: {...}} in a data line.
  if (chunk?.error)
    throw upstreamError(provider, 'an error in the stream', {
      providerSaid: truncate(scrubSecret(messageOf(JSON.stringify(chunk)), secret)) || undefined,
    });
  if (!chunk || !Array.isArray(chunk.choices))
    throw upstreamError(provider, 'malformed stream: a chunk has no choices');
  return chunk;
}
