export {
  FilterError,
  invalidFilter,
  FILTER_MAX_DEPTH,
  FILTER_MAX_LENGTH,
  FILTER_MAX_COMPARISONS,
} from './filter-error.js';
export { parseFilter, type FilterNode } from './parser.js';
export { compileFilter } from './compiler.js';
export { fieldSpec, DEFAULT_SELECT, SELECTABLE_FIELDS, SORTABLE_FIELDS } from './fields.js';
export { SqlFragment, join, raw, sql } from './sql-fragment.js';

import { compileFilter } from './compiler.js';
import { sql, type SqlFragment } from './sql-fragment.js';
import { parseFilter } from './parser.js';

/** Parses and compiles an untrusted filter; an empty filter matches everything. Throws FilterError. */
export function filterToSql(text: string): SqlFragment {
  const node = parseFilter(text);
  return node ? compileFilter(node) : sql`true`;
}
