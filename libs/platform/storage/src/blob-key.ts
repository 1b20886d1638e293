import { BlobRangeError, type BlobRange } from './blob-storage.js';

export const MAX_KEY_LENGTH = 512;
const MAX_SEGMENT_LENGTH = 255; // the usual file-name limit, so a key fits any disk
const KEY = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/**
 * Keys are '/'-separated segments of [A-Za-z0-9._-] that do not start with a dot: no absolute
 * paths, no `.`/`..`, no NUL or backslash, and the local adapter's `.partial/` is out of reach.
 * A key can therefore never name a path outside a root folder.
 */
export function assertValidKey(key: string): void {
  const valid =
    key.length <= MAX_KEY_LENGTH &&
    KEY.test(key) &&
    key.split('/').every((segment) => !segment.startsWith('.') && segment.length <= MAX_SEGMENT_LENGTH);
  if (!valid) throw new TypeError(`invalid blob key ${JSON.stringify(key.slice(0, 80))}`);
}

/** A prefix is empty, a key, or a key followed by '/'. */
export function assertValidPrefix(prefix: string): void {
  if (prefix !== '') assertValidKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

export function assertValidRange(range: BlobRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new BlobRangeError(range);
  }
}
