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

  it('counts text outside ASCII by its UTF-8 bytes, so Chinese costs about a token a character', () => {
    // 13 CJK characters are 39 bytes: 10 tokens, where a character count said 4.
    expect(estimatePromptTokens([{ content: '向量检索和关键词检索的融合' }])).toBe(Math.ceil((13 * 3) / 4));
    const tally = new StreamTally(0);
    tally.observe(chunk('知识工作区平台'));
    expect(tally.usage().completion_tokens).toBe(Math.ceil((7 * 3) / 4));
    // Emoji are four bytes each (two UTF-16 units): one token apiece.
    expect(estimatePromptTokens([{ content: '🙂🙂🙂🙂' }])).toBe(4);
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
