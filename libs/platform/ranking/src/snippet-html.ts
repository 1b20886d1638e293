/**
 * Search snippets (fragments' and files') as safe HTML whose only markup is `<mark>`.
 *
 * Postgres' ts_headline copies the text around its matches as it is: a tag its parser does not
 * take for one (`<img src=x onerror=…>`, `<svg/onload=…>`) reaches the client, which renders
 * the snippet as HTML to show the highlights. So the statement asks ts_headline to wrap matches
 * in two control characters instead (`headlineOptions`), after turning those characters in the
 * text into spaces (`translate(text, HEADLINE_MARKERS, '  ')`: they separate words either way,
 * so matching is unchanged), and `snippetHtml` escapes the headline, then puts `<mark>` and
 * `</mark>` where the markers are.
 */
const MATCH_START = '\u0001';
const MATCH_STOP = '\u0002';

/** The two markers, for `translate(text, HEADLINE_MARKERS, '  ')` before ts_headline. */
export const HEADLINE_MARKERS = MATCH_START + MATCH_STOP;

/** ts_headline's options with the markers as selectors. */
export function headlineOptions(shape: { maxWords: number; minWords: number; maxFragments: number }): string {
  return `StartSel=${MATCH_START}, StopSel=${MATCH_STOP}, MaxWords=${shape.maxWords}, MinWords=${shape.minWords}, MaxFragments=${shape.maxFragments}`;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A headline made with `headlineOptions`, as HTML: the text escaped, the matches in `<mark>`. */
export function snippetHtml(headline: string): string {
  return headline
    .replace(/[&<>"']/g, (c) => ESCAPES[c]!)
    .replaceAll(MATCH_START, '<mark>')
    .replaceAll(MATCH_STOP, '</mark>');
}
