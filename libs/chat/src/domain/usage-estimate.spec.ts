import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '@kw/platform-models';
import { estimatePromptTokens, StreamTally } from './usage-estimate.js';

const chunk = (content: string, usage?: ChatCompletionChunk['usage']): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: content ? [{ index: 0, delta: { content }, finish_reason: null }] : [],
  ...(usage ? { usage } : {}),
});

describe('usage estimate', () => {
  it('estimates a prompt from its text, tool calls and images, not from image URLs', () => {
    expect(
      estimatePromptTokens([
        { content: 'abcdefgh' },
        {
          content: [
            { type: 'text', text: 'abcd' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(10_000)}` } },
          ],
        },
      ]),
    ).toBe(3 + 85);
  });

  it('estimates what a stream relayed, at least one token per chunk with text', () => {
    const tally = new StreamTally(10);
    for (const piece of ['a', 'b', 'c', 'defghijklmnop']) tally.observe(chunk(piece));
    tally.observe(chunk(''));
    expect(tally.usage()).toEqual({ prompt_tokens: 10, completion_tokens: 4, estimated: true });
  });

  it('takes the provider’s usage as it is once it arrived, adding nothing', () => {
    const tally = new StreamTally(10);
    tally.observe(chunk('some text here'));
    tally.observe(chunk('', { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }));
    expect(tally.usage()).toEqual({ prompt_tokens: 7, completion_tokens: 3, estimated: false });
  });
});
