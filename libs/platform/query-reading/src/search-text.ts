/**
 * A query's text as search reads it: Unicode NFC (composed). The same word typed decomposed (NFD:
 * `e` then a combining accent, as some keyboards and pasted text send it) would otherwise be
 * another word to the full-text index, which reads fragments in NFC, and to the embedding model.
 * Accents stay significant: `cafe` is not `café` (docs/search.md, "How a query is read").
 */
export function searchText(text: string): string {
  return text.normalize('NFC');
}
