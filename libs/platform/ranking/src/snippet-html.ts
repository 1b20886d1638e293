/**
 * Search snippets (fragments' and files') as safe HTML whose only markup is `<mark>`.
 *
 * Postgres' ts_headline copies the text around its matches as it is, except what its parser takes
 * for a tag (`<b>`, `<String>`, `<b and 5 >`), which it drops, and a tag it does not take for one
 * (`<img src=x onerror=…>`, `<svg/onload=…>`) would reach the client, which renders the snippet
 * as HTML to show the highlights. So the statement hands ts_headline the text with `<` and `>`
 * turned into two control characters (no tag left to drop: `List<String>` stays), asks it to
 * wrap matches in two more (`headlineOptions`), after turning those four characters in the text
 * into spaces (`translate(text, HEADLINE_FROM, HEADLINE_TO)`: they separate words either way),
 * and `snippetHtml` escapes the headline, then puts `&lt;`, `&gt;`, `<mark>` and `</mark>`
 * where the control characters are.
 */
const MATCH_START = '\u0001';
const MATCH_STOP = '\u0002';
const ANGLE_OPEN = '\u0003';
const ANGLE_CLOSE = '\u0004';

/** For `translate(text, HEADLINE_FROM, HEADLINE_TO)` before ts_headline: the control characters to spaces, `<` `>` to theirs. */
export const HEADLINE_FROM = MATCH_START + MATCH_STOP + ANGLE_OPEN + ANGLE_CLOSE + '<>';
export const HEADLINE_TO = '    ' + ANGLE_OPEN + ANGLE_CLOSE;

/** ts_headline's options with the markers as selectors. */
export function headlineOptions(shape: { maxWords: number; minWords: number; maxFragments: number }): string {
  return `StartSel=${MATCH_START}, StopSel=${MATCH_STOP}, MaxWords=${shape.maxWords}, MinWords=${shape.minWords}, MaxFragments=${shape.maxFragments}`;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A headline made with `headlineOptions`, as HTML: the text escaped, the matches in `<mark>`. */
export function snippetHtml(headline: string): string {
  return headline
    .replace(/[&<>"']/g, (c) => ESCAPES[c]!)
    .replaceAll(ANGLE_OPEN, '&lt;')
    .replaceAll(ANGLE_CLOSE, '&gt;')
    .replaceAll(MATCH_START, '<mark>')
    .replaceAll(MATCH_STOP, '</mark>');
}
