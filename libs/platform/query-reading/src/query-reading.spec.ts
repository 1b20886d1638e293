import { describe, expect, it } from 'vitest';
import { readQuery, relaxed, requiredPhrases, SYNTAX_WORDS_MAX } from './query-reading.js';

describe('readQuery', () => {
  it('reads sentences and plain keywords as "any of these words", ranked by all of them', () => {
    for (const text of [
      'does vitamin D supplementation reduce fracture risk in older adults?',
      'postgres index tuning',
      'low-fat diet and heart disease', // a hyphen inside a word is not an exclusion
      'what is a k-means cluster or a centroid', // lower-case "or" is a word, not the operator
      'temperatures from -5 to -10 degrees', // a minus before a digit is a negative number
    ]) {
      expect(readQuery(text)).toEqual({
        text,
        precise: false,
        rankingText: text,
        exclusions: [],
        alternatives: [],
        modelText: text,
      });
    }
  });

  it('keeps web-search syntax precise: phrases, exclusions and OR', () => {
    expect(readQuery('"control plane" -coffee')).toEqual({
      text: '"control plane" -coffee',
      precise: true,
      rankingText: 'control plane',
      exclusions: ['coffee'],
      alternatives: [[{ text: 'control plane', phrase: true }]],
      modelText: 'control plane',
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
    expect(readQuery(abstract)).toMatchObject({
      precise: false,
      rankingText: abstract,
      exclusions: [],
      modelText: abstract,
    });
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
      alternatives: [],
      modelText: 'control plane marketing',
    });
  });

  it('splits a precise query at OR into alternatives, keeping every exclusion apart for the whole query', () => {
    const word = (text: string) => ({ text, phrase: false });
    expect(readQuery('zebra OR giraffe -winter')).toMatchObject({
      alternatives: [[word('zebra')], [word('giraffe')]],
      exclusions: ['winter'],
      rankingText: 'zebra giraffe',
    });
    // OR binds loosest, as in web search: (zebra) or (giraffe and lion).
    expect(readQuery('-winter zebra OR giraffe lion').alternatives).toEqual([
      [word('zebra')],
      [word('giraffe'), word('lion')],
    ]);
    // A minus or OR inside quotes is part of the phrase; a lone minus, a negative number and a
    // hyphenated word are no exclusions; an unclosed quote runs to the end.
    expect(readQuery('"a -b OR c" -5 - low-fat "open end')).toMatchObject({
      alternatives: [
        [{ text: 'a -b OR c', phrase: true }, word('-5'), word('low-fat'), { text: 'open end', phrase: true }],
      ],
      exclusions: [],
    });
    expect(readQuery('-kafka').alternatives).toEqual([]);
  });

  it('gives a model the words of a precise query, without its operators or excluded words', () => {
    expect(readQuery('billing queue -kafka').modelText).toBe('billing queue');
    expect(readQuery('"control plane" OR kubernetes -"tea leaves"').modelText).toBe('control plane kubernetes');
    expect(readQuery('-kafka').modelText).toBe('');
  });

  it('requires of the vector side the phrases, never the plain words', () => {
    expect(requiredPhrases(readQuery('"control plane"'))).toEqual([['control plane']]);
    expect(requiredPhrases(readQuery('"control plane" upgrades -coffee'))).toEqual([['control plane']]);
    expect(requiredPhrases(readQuery('"a b" OR "c d" -x'))).toEqual([['a b'], ['c d']]);
    expect(requiredPhrases(readQuery('"a b" OR c'))).toBeUndefined();
    expect(requiredPhrases(readQuery('"a b" c OR d "e f"'))).toEqual([['a b'], ['e f']]);
    expect(requiredPhrases(readQuery('billing -kafka'))).toBeUndefined();
    expect(requiredPhrases(relaxed(readQuery('"control plane"')))).toBeUndefined();
  });
});
