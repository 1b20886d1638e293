import { describe, expect, it } from 'vitest';
import { readQuery, relaxed, SYNTAX_WORDS_MAX } from './query-reading.js';

describe('readQuery', () => {
  it('reads sentences and plain keywords as "any of these words", ranked by all of them', () => {
    for (const text of [
      'does vitamin D supplementation reduce fracture risk in older adults?',
      'postgres index tuning',
      'low-fat diet and heart disease', // a hyphen inside a word is not an exclusion
      'what is a k-means cluster or a centroid', // lower-case "or" is a word, not the operator
      'temperatures from -5 to -10 degrees', // a minus before a digit is a negative number
    ]) {
      expect(readQuery(text)).toEqual({ text, precise: false, rankingText: text, exclusions: [] });
    }
  });

  it('keeps web-search syntax precise: phrases, exclusions and OR', () => {
    expect(readQuery('"control plane" -coffee')).toEqual({
      text: '"control plane" -coffee',
      precise: true,
      rankingText: 'control plane',
      exclusions: ['coffee'],
    });
    expect(readQuery('postgres OR mysql')).toMatchObject({ precise: true, rankingText: 'postgres mysql' });
    expect(readQuery('-"old notes" kubernetes upgrade')).toMatchObject({
      precise: true,
      rankingText: 'kubernetes upgrade',
      exclusions: ['old notes'],
    });
    expect(readQuery('"control plane" -coffee -"tea leaves" OR -x')).toMatchObject({
      exclusions: ['coffee', 'tea leaves', 'x'],
    });
    expect(readQuery('temperatures from -5 to -10 "degrees"').exclusions).toEqual([]);
    expect(readQuery('OR')).toMatchObject({ precise: true, rankingText: '' });
  });

  it('reads a long text as prose, whatever quotes, dashes or ORs it holds (a pasted abstract)', () => {
    const abstract =
      'Statin use was associated with lower breast cancer mortality (OR 0.62) in a cohort of "older" women; ' +
      'the effect held for -ER tumours and across every age group we studied in the registry data.';
    expect(abstract.split(/\s+/).length).toBeGreaterThan(SYNTAX_WORDS_MAX);
    expect(readQuery(abstract)).toEqual({ text: abstract, precise: false, rankingText: abstract, exclusions: [] });
    // At the limit the syntax still counts.
    const typed = `"control plane" ${'word '.repeat(SYNTAX_WORDS_MAX - 2).trim()}`;
    expect(typed.split(/\s+/)).toHaveLength(SYNTAX_WORDS_MAX);
    expect(readQuery(typed).precise).toBe(true);
    expect(readQuery(`${typed} more`).precise).toBe(false);
  });

  it('relaxes a precise query to its words, keeping what it excludes', () => {
    expect(relaxed(readQuery('"control plane" marketing -coffee'))).toEqual({
      text: '"control plane" marketing -coffee',
      precise: false,
      rankingText: 'control plane marketing',
      exclusions: ['coffee'],
    });
  });
});
