/** Limits of the files component (docs/files.md, "Limits"); sizes and quotas are configuration. */
export const FILE_DESCRIPTION_MAX_CHARS = 2_000;
/** The stored name is cut to this many UTF-8 bytes (safeFileName). */
export const FILE_NAME_MAX_BYTES = 255;
export const FILES_PER_UPLOAD_MAX = 20;
export const FILES_BULK_DELETE_MAX = 100;
export const FILE_SEARCH_QUERY_MAX_CHARS = 500;
export const FILE_SEARCH_WORDS_MAX = 32;
export const FILE_SEARCH_PAGE_MAX = 100;
export const FILE_SEARCH_PAGE_DEFAULT = 20;
/** The byte proxy (GET /api/workspace-files/{fileId}/bytes) answers 413 above this (spec, Limits). */
export const BYTE_PROXY_MAX_BYTES = 50 * 1024 * 1024;
/** A reservation not completed within this time is swept with its blob (an upload left hanging). */
export const UPLOAD_RESERVATION_TTL_MS = 6 * 60 * 60 * 1000;
/** A blob without a file row is removed once older than this (a crash between blob and row). */
export const ORPHAN_BLOB_GRACE_MS = 60 * 60 * 1000;
