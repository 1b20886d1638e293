// The limits live in @kw/contracts (libs/contracts/src/limits/fragments.ts), where the service's
// hop enforces them for every caller; this file keeps the names the component's files import.
export {
  FRAGMENT_LIST_LIMIT_MIN,
  FRAGMENT_LIST_LIMIT_MAX,
  FRAGMENT_LIST_LIMIT_DEFAULT,
  FRAGMENT_LIST_OFFSET_MAX,
  FRAGMENT_LIST_BATCH,
  FRAGMENT_TITLE_MAX,
  FRAGMENT_CONTENT_MAX_BYTES,
  FRAGMENT_SUMMARY_MAX,
  FRAGMENT_TAGS_MAX,
  FRAGMENT_TAG_MAX,
  FRAGMENT_KEY_MAX,
  FRAGMENT_TYPE_KEY_MAX,
  FRAGMENT_TYPE_NAME_MAX,
  DESCRIPTION_MAX,
  COLLECTION_NAME_MAX,
  LOOKUP_FRAGMENT_IDS_MAX,
  COLLECTION_FRAGMENT_IDS_MAX,
  PATCH_OPERATIONS_MAX,
  CREATED_VIA,
  type CreatedVia,
  FRAGMENT_STATUSES,
  FRAGMENT_SORTS,
  SORT_ORDERS,
  PATCH_OPS,
} from '@kw/contracts';

/** The largest workspace archive an import takes (the archive is read whole to check it first). */
export const WORKSPACE_ARCHIVE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Fragments a bulk write inserts per statement (with their outbox rows: 22 parameters each,
 * far under PostgreSQL's 65,535). Larger groups save little once the round trip and the commit
 * are shared, and keep a group that a taken key sends one by one small.
 */
export const BULK_INSERT_ROWS = 100;

/**
 * An import writes its new fragments BULK_INSERT_ROWS at a time, or fewer once their content
 * reaches this: what it holds is one such batch (and its writes' copies), not a hundred
 * fragments of 1,000,000 bytes each.
 */
export const IMPORT_BATCH_CONTENT_BYTES = 8 * 1024 * 1024;
