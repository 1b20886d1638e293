/** Small text helpers shared by the built-in provider: words, sentences, stop words. */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from ' +
    'further had has have having he her here hers herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up very was we ' +
    'were what when where which while who whom why will with would you your yours yourself yourselves also may might must shall use used using via per etc one two new like get got ' +
    'le la les de des du un une et est en que qui dans pour pas sur au aux ce ces il elle nous vous ils sont par plus avec'
  ).split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Lower-cased words of letters and digits (any script). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_'-]*/gu) ?? [];
}

/** Content words: no stop words, no bare numbers, at least 3 characters. */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => w.length >= 3 && !isStopWord(w) && !/^\d+$/.test(w));
}

/** Sentences, split after . ! ? or a line break; Markdown heading marks removed. */
export function sentences(text: string): string[] {
  return text
    .replace(/^#{1,6}\s+/gm, '')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Paragraphs (blank-line separated). */
export function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}
