// An entity-tag: an optional weak prefix and a quoted opaque tag (RFC 9110 8.8.3).
const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether an `If-None-Match` header matches the current representation's ETag, so a GET answers
 * 304 (RFC 9110 13.1.2): `*` matches any, a list matches when any member does, and the
 * comparison is weak (`W/"x"` matches `"x"`). Several header lines arrive joined by commas.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const [, tag] of header.matchAll(ENTITY_TAG)) if (`"${tag}"` === opaque) return true;
  return false;
}
