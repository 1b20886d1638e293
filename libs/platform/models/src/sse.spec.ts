import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from './sse.js';

const STREAM =
  ': comment\n' +
  'event: message_start\r\ndata: {"a":"é€"}\r\n\r\n' +
  'data: line one\ndata:line two\n\n' +
  'event: ping\ndata:\n\n' +
  'id: 7\nretry: 10\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"a":"é€"}' },
  { event: 'message', data: 'line one\nline two' },
  { event: 'ping', data: '' },
  { event: 'message', data: '[DONE]' },
];

function parseIn(chunks: Buffer[]): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk).map((e) => ({ ...e })));
  events.push(...parser.end());
  return events;
}

describe('SseParser', () => {
  it('parses events, comments, CRLF and multi-line data', () => {
    expect(parseIn([Buffer.from(STREAM)])).toEqual(EXPECTED);
  });

  it('gives the same events whatever the byte boundaries (lines and UTF-8 characters split)', () => {
    const bytes = Buffer.from(STREAM);
    expect(parseIn([...bytes].map((b) => Buffer.from([b])))).toEqual(EXPECTED);
    for (let cut = 1; cut < bytes.length; cut++)
      expect(parseIn([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(EXPECTED);
  });

  it('dispatches a last event that lacks its blank line at the end', () => {
    expect(parseIn([Buffer.from('data: [DONE]')])).toEqual([{ event: 'message', data: '[DONE]' }]);
  });
});
