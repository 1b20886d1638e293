// The REST edge's limits for the same inputs (libs/fragments/src/fragments-limits.ts; a domain
// lib cannot import another), so an MCP client meets the same bounds as a REST client.
export const TITLE_MAX = 500;
export const CONTENT_MAX = 1_000_000;
export const SUMMARY_MAX = 10_000;
export const TAGS_MAX = 50;
export const TAG_MAX = 100;
export const KEY_MAX = 500;
export const QUERY_MAX = 1_000;
export const LIST_LIMIT_MAX = 100;
export const IDS_MAX = 100;
/** Listings answer this much content per fragment; get_fragment answers all of it. */
export const PREVIEW_CHARS = 280;
