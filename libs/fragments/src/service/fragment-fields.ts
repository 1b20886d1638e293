import { FRAGMENT_CONTENT_MAX_BYTES } from '../fragments-limits.js';
import { invalidInput } from './fragment-errors.js';

/** Tags as stored: trimmed, without empty ones, each once (in the order given). */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t !== ''))];
}

/** Content is bounded in UTF-8 bytes, whether sent whole or made by patch operations. */
export function assertContentSize(content: string): void {
  if (Buffer.byteLength(content, 'utf8') > FRAGMENT_CONTENT_MAX_BYTES)
    throw invalidInput('content', `must be at most ${FRAGMENT_CONTENT_MAX_BYTES} bytes`);
}
