import { describe, expect, it } from 'vitest';
import { readQuery } from './query-reading.js';

describe('readQuery', () => {
  it('reads sentences and plain keywords as "any of these words", ranked by all of them', () => {
    for (const text of [
      'does vitamin D supplementation reduce fracture risk in older adults?',
      'postgres index tuning',
      'low-fat diet and heart disease', // a hyphen inside a word is not an exclusion
      'what is a k-means cluster or a centroid', // lower-case "or" is a word, not the operator
    ]) {
      expect(readQuery(text)).toEqual({ text, precise: false, rankingText: text });
    }
  });

  it('keeps web-search syntax precise: phrases, exclusions and OR', () => {
    expect(readQuery('"control plane" -coffee')).toEqual({
      text: '"control plane" -coffee',
      precise: true,
      rankingText: 'control plane',
    });
    expect(readQuery('postgres OR mysql')).toMatchObject({ precise: true, rankingText: 'postgres mysql' });
    expect(readQuery('-"old notes" kubernetes upgrade')).toMatchObject({
      precise: true,
      rankingText: 'kubernetes upgrade',
    });
    expect(readQuery('OR')).toMatchObject({ precise: true, rankingText: '' });
  });
});
