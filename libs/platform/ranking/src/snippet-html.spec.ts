import { describe, expect, it } from 'vitest';
import { HEADLINE_FROM, HEADLINE_TO, snippetHtml } from './snippet-html.js';

/** What Postgres' translate() does with the two strings, character by character. */
const translate = (text: string) =>
  [...text]
    .map((c) => {
      const at = HEADLINE_FROM.indexOf(c);
      return at < 0 ? c : (HEADLINE_TO[at] ?? '');
    })
    .join('');

describe('snippetHtml', () => {
  it('escapes angle brackets the headline was given as control characters, and marks the matches', () => {
    const headline = translate('List<String> and a<b and 5 > 3').replace('String', '\u0001String\u0002');
    expect(snippetHtml(headline)).toBe('List&lt;<mark>String</mark>&gt; and a&lt;b and 5 &gt; 3');
  });

  it('leaves no control character of the text to be read as a marker or a bracket', () => {
    expect(snippetHtml(translate('a\u0001b\u0002c\u0003d\u0004e'))).toBe('a b c d e');
    expect(snippetHtml(`x & "y" 'z'`)).toBe('x &amp; &quot;y&quot; &#39;z&#39;');
  });
});
