import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches } from './if-none-match.js';

const ETAG = '"abc123"';

describe('ifNoneMatchMatches', () => {
  it('matches the exact tag, its weak form, any member of a list, and *', () => {
    for (const header of ['"abc123"', 'W/"abc123"', '"x", "abc123"', '"x",W/"abc123" , "y"', '*', ' * '])
      expect(ifNoneMatchMatches(header, ETAG), header).toBe(true);
  });

  it('does not match another tag, an unquoted one, a list without it or no header', () => {
    for (const header of ['"abc124"', 'abc123', '"x", "y"', '', '"abc123', 'W/"abc"'])
      expect(ifNoneMatchMatches(header, ETAG), header).toBe(false);
    expect(ifNoneMatchMatches(undefined, ETAG)).toBe(false);
  });
});
