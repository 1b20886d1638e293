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

import { DataPrisma as Prisma } from '@kw/platform-persistence';
import { compileFilter } from './compiler.js';
import { parseFilter } from './parser.js';

/** Parses and compiles an untrusted filter; an empty filter matches everything. Throws FilterError. */
export function filterToSql(text: string): Prisma.Sql {
  const node = parseFilter(text);
  return node ? compileFilter(node) : Prisma.sql`true`;
}
