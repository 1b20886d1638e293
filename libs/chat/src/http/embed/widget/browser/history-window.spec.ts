import { describe, expect, it } from 'vitest';
import { historyToSend, type ChatMessage } from './history-window.js';

const limits = { messages: 100, messageChars: 32_000, bodyBytes: 5 * 1024 * 1024 };
const next = { role: 'user', content: 'and now?' };
/** `turns` exchanges, oldest first: question i, answer i. */
const conversation = (turns: number, answer = (i: number) => `answer ${i}`): ChatMessage[] =>
  Array.from({ length: turns }, (_, i) => [
    { role: 'user', content: `question ${i}` },
    { role: 'assistant', content: answer(i) },
  ]).flat();

describe('historyToSend (a stateless frame trims what it sends)', () => {
  it('sends the whole history while it fits', () => {
    const history = conversation(3);
    expect(historyToSend(history, next, limits)).toEqual([...history, next]);
  });

  it('keeps the newest messages within the count, starting with a user message', () => {
    const sent = historyToSend(conversation(60), next, limits);
    expect(sent.length).toBeLessThanOrEqual(100);
    expect(sent.at(-1)).toEqual(next);
    expect(sent.at(-2)).toEqual({ role: 'assistant', content: 'answer 59' });
    expect(sent[0].role).toBe('user');
    // 99 places before the new message: the oldest kept would be an answer, so it goes too.
    expect(sent).toHaveLength(99);
    expect(sent[0]).toEqual({ role: 'user', content: 'question 11' });
  });

  it('cuts a message over the per-message limit without splitting a surrogate pair, and drops empty ones', () => {
    const long = `${'a'.repeat(31_999)}😀 and more`;
    const sent = historyToSend(
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: long },
        { role: 'user', content: 'q2' },
        { role: 'assistant', content: '' },
      ],
      next,
      limits,
    );
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user']);
    expect(sent[1].content).toBe('a'.repeat(31_999));
    expect(sent[1].content.length).toBeLessThanOrEqual(32_000);
  });

  it('stays within the body size, counted in UTF-8 bytes of JSON', () => {
    const history = conversation(40, () => '€'.repeat(30_000)); // 90,000 bytes each
    const small = { ...limits, bodyBytes: 1_000_000 };
    const sent = historyToSend(history, next, small);
    expect(new TextEncoder().encode(JSON.stringify({ messages: sent })).length).toBeLessThanOrEqual(1_000_000);
    expect(sent.length).toBeGreaterThan(10);
    expect(sent.at(-2)!.content).toBe('€'.repeat(30_000));
    expect(sent[0].role).toBe('user');
  });
});
