/** Limits of the files component (docs/files.md, "Limits"); sizes and quotas are configuration. */
export const FILE_DESCRIPTION_MAX_CHARS = 2_000;
/** Characters as the docs count them: code points (an emoji is one), not UTF-16 code units. */
export const codePoints = (value: string): number => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};
/** The stored name is cut to this many UTF-8 bytes (safeFileName). */
export const FILE_NAME_MAX_BYTES = 255;
export const FILES_PER_UPLOAD_MAX = 20;
export const FILES_BULK_DELETE_MAX = 100;
/** A contract limit: workspace search, which asks the files search too, reads it. */
export { FILE_SEARCH_QUERY_MAX_CHARS } from '@kw/contracts';
/** Files search ranks in workspace search's modes (a contract value). */
export { SEARCH_MODES, type SearchMode } from '@kw/contracts';
/** Each retriever of files search contributes at most this many files; later ones are not reachable. */
export const FILE_RETRIEVAL_DEPTH = 500;
/** Name matches ranked at most (a query like "." matches every name). */
export const FILE_NAME_MATCHES_MAX = 5_000;
/** A chunk this close to the query (cosine) or closer counts as a semantic match, as for fragments. */
export const FILE_MIN_SIMILARITY = 0.1;
export const FILE_SEARCH_WORDS_MAX = 32;
export const FILE_SEARCH_PAGE_DEFAULT = 20;
/** The files listing's page (GET /api/files), as files search's; offsets beyond are refused (use filters). */
export const FILE_LIST_PAGE_DEFAULT = 20;
/** Page bounds of search, listing and chunk reads (contract limits: the MCP file tools read them too). */
export {
  FILE_SEARCH_PAGE_MAX,
  FILE_SEARCH_OFFSET_MAX,
  FILE_LIST_PAGE_MAX,
  FILE_LIST_OFFSET_MAX,
  FILE_CHUNKS_OFFSET_MAX,
} from '@kw/contracts';
/** Chunks of a file's text one read answers: 10 unless asked (about 10,000 characters), at most the contract's 50. */
export const FILE_CHUNKS_PAGE_DEFAULT = 10;
export { FILE_CHUNKS_PAGE_MAX } from '@kw/contracts';
/** The byte proxy (GET /api/workspace-files/{fileId}/bytes) answers 413 above this (spec, Limits). */
export const BYTE_PROXY_MAX_BYTES = 50 * 1024 * 1024;
