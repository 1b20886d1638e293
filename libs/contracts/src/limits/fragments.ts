/** Size limits of fragments, fragment types and collections (the per-workspace count is MAX_FRAGMENTS_PER_WORKSPACE in AppConfig). */
export const FRAGMENT_LIST_LIMIT_MIN = 5;
export const FRAGMENT_LIST_LIMIT_MAX = 500;
export const FRAGMENT_LIST_LIMIT_DEFAULT = 50;
/** Rows read per query while filling a page: bounds what one query loads beyond the byte budget. */
export const FRAGMENT_LIST_BATCH = 50;
export const FRAGMENT_TITLE_MAX = 500;
export const FRAGMENT_CONTENT_MAX_BYTES = 1_000_000;
export const FRAGMENT_SUMMARY_MAX = 10_000;
export const FRAGMENT_TAGS_MAX = 50;
export const FRAGMENT_TAG_MAX = 100;
export const FRAGMENT_KEY_MAX = 500;
export const FRAGMENT_TYPE_KEY_MAX = 64;
export const FRAGMENT_TYPE_NAME_MAX = 100;
export const DESCRIPTION_MAX = 2_000;
export const COLLECTION_NAME_MAX = 200;
export const LOOKUP_FRAGMENT_IDS_MAX = 500;
export const COLLECTION_FRAGMENT_IDS_MAX = 500;
export const PATCH_OPERATIONS_MAX = 50;
/** Fragments in one bulk write (POST /api/memory-fragments/bulk). */
export const BULK_FRAGMENTS_MAX = 500;
/** The bulk route's own body limit: room for many fragments, never the content maximum of each. */
export const BULK_FRAGMENTS_BODY_BYTES = 32 * 1024 * 1024;

/** Origins of a write, stored in `createdVia`; anything else is refused with 400. */
export const CREATED_VIA = ['api', 'mcp', 'import', 'web', 'agent', 'chat', 'integration'] as const;
export type CreatedVia = (typeof CREATED_VIA)[number];

export const FRAGMENT_STATUSES = ['processing', 'published'] as const;
export const FRAGMENT_SORTS = ['createdAt', 'updatedAt', 'title'] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;
export const PATCH_OPS = ['append', 'prepend', 'replaceSection'] as const;
