import { describe, expect, it } from 'vitest';
import { commaList } from './comma-list.js';

describe('comma-list query parameters', () => {
  it('is a comma list of trimmed tags, empty ones dropped', () => {
    expect(commaList(undefined)).toEqual([]);
    expect(commaList('')).toEqual([]);
    expect(commaList('red')).toEqual(['red']);
    expect(commaList(' red , blue,,')).toEqual(['red', 'blue']);
  });

  it('reads \\, as a comma inside a tag and \\\\ as a backslash; other backslashes stay', () => {
    expect(commaList('a\\,b')).toEqual(['a,b']);
    expect(commaList('a\\,b,c')).toEqual(['a,b', 'c']);
    expect(commaList('dir\\\\,c')).toEqual(['dir\\', 'c']);
    expect(commaList('C:\\temp')).toEqual(['C:\\temp']);
    expect(commaList('end\\')).toEqual(['end\\']);
  });
});
