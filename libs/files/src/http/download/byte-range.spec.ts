import { describe, expect, it } from 'vitest';
import { parseByteRange } from './byte-range.js';

describe('parseByteRange', () => {
  it('reads one range, a suffix and an open end, clipped to the file', () => {
    expect(parseByteRange('bytes=0-4', 10)).toEqual({ start: 0, end: 4 });
    expect(parseByteRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseByteRange('bytes=-50', 10)).toEqual({ start: 0, end: 9 });
    expect(parseByteRange('bytes=8-', 10)).toEqual({ start: 8, end: 9 });
    expect(parseByteRange('bytes=0-99', 10)).toEqual({ start: 0, end: 9 });
  });

  it('sends the whole file for no header, several ranges or one that does not parse', () => {
    expect(parseByteRange(undefined, 10)).toBeNull();
    expect(parseByteRange('bytes=0-1,3-4', 10)).toBeNull();
    expect(parseByteRange('items=0-1', 10)).toBeNull();
    expect(parseByteRange('bytes=-', 10)).toBeNull();
  });

  it('refuses with 416 a range past the end, a zero suffix, and every range of an empty file', () => {
    for (const [header, size] of [
      ['bytes=10-', 10],
      ['bytes=-0', 10],
      ['bytes=0-', 0],
      ['bytes=-5', 0],
      ['bytes=-1', 0],
    ] as const) {
      expect(() => parseByteRange(header, size), `${header} of ${size} bytes`).toThrow(
        expect.objectContaining({ status: 416, code: 'RANGE_NOT_SATISFIABLE', details: { size } }),
      );
    }
  });
});
