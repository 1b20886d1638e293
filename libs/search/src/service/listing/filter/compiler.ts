import { raw, sql, type SqlFragment } from './sql-fragment.js';
import { FilterError } from './filter-error.js';
import { fieldSpec, OPERATORS_BY_KIND, type FieldSpec } from './fields.js';
import type { FilterNode, Literal } from './parser.js';
import { isUuid } from '@kw/platform-ids';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const COMPARATORS: Record<string, SqlFragment> = {
  '=': raw('='),
  '!=': raw('<>'),
  '<': raw('<'),
  '<=': raw('<='),
  '>': raw('>'),
  '>=': raw('>='),
};

/**
 * Compiles a parsed filter to a SQL condition. Columns and operators come from constants;
 * every value is a bound parameter. A comparison on a nullable column is wrapped in
 * COALESCE(.., false) so `not` over a NULL column behaves like two-valued logic; the others
 * are never NULL (values are never NULL either), and stay bare so their indexes serve them.
 */
export function compileFilter(node: FilterNode): SqlFragment {
  switch (node.type) {
    case 'and':
      return sql`(${compileFilter(node.left)} AND ${compileFilter(node.right)})`;
    case 'or':
      return sql`(${compileFilter(node.left)} OR ${compileFilter(node.right)})`;
    case 'not':
      return sql`(NOT ${compileFilter(node.operand)})`;
    case 'compare': {
      const comparison = compileComparison(node);
      return fieldSpec(node.field)?.nullable ? sql`COALESCE(${comparison}, false)` : comparison;
    }
  }
}

function compileComparison(node: Extract<FilterNode, { type: 'compare' }>): SqlFragment {
  const spec = fieldSpec(node.field);
  if (!spec) throw new FilterError(node.fieldPosition, `unknown field '${node.field}'`);
  if (node.op === 'is null' || node.op === 'is not null') {
    if (!spec.nullable) throw new FilterError(node.opPosition, `'${node.field}' is never null`);
    return node.op === 'is null' ? sql`(${spec.sql} IS NULL)` : sql`(${spec.sql} IS NOT NULL)`;
  }
  if (!OPERATORS_BY_KIND[spec.kind].includes(node.op) || (node.field === 'text' && node.op !== '~')) {
    const allowed = node.field === 'text' ? ['~'] : OPERATORS_BY_KIND[spec.kind];
    throw new FilterError(
      node.opPosition,
      `operator '${node.op}' does not apply to '${node.field}' (use ${allowed.join(', ')})`,
    );
  }
  const value = node.value!;
  switch (spec.kind) {
    case 'text':
      return compileText(spec, node.op, stringOf(value, node.field));
    case 'uuid': {
      const id = stringOf(value, node.field);
      if (!isUuid(id)) throw new FilterError(value.position, `'${node.field}' takes a UUID`);
      return sql`(${spec.sql} ${COMPARATORS[node.op]} ${id}::uuid)`;
    }
    case 'tags':
      // Case-insensitive: the stored lower-cased tags hold the lower-cased value (GIN index).
      return sql`(${spec.folded!} @> ARRAY[lower(${stringOf(value, node.field)})]::text[])`;
    case 'number': {
      if (value.kind !== 'number' || !/^-?\d{1,9}$/.test(value.value))
        throw new FilterError(value.position, `'${node.field}' takes a whole number`);
      return sql`(${spec.sql} ${COMPARATORS[node.op]} ${Number(value.value)})`;
    }
    case 'date':
      return compileDate(spec, node.op, value, node.field);
  }
}

function compileText(spec: FieldSpec, op: string, text: string): SqlFragment {
  if (op === '~') return sql`(${spec.sql} ILIKE ${`%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`})`;
  return sql`(${spec.sql} ${COMPARATORS[op]} ${text})`;
}

/** A date alone means the whole UTC day: `createdAt = '2026-01-02'` is that day, `> '2026-01-02'` after it. */
function compileDate(spec: FieldSpec, op: string, value: Literal, field: string): SqlFragment {
  const text = stringOf(value, field);
  const dateOnly = DATE_ONLY.test(text);
  const at = new Date(dateOnly ? `${text}T00:00:00Z` : text);
  if (
    (!dateOnly && !DATE_TIME.test(text)) ||
    Number.isNaN(at.getTime()) ||
    (dateOnly && at.toISOString().slice(0, 10) !== text)
  ) {
    throw new FilterError(value.position, `'${field}' takes a date ('2026-01-31') or an ISO 8601 timestamp`);
  }
  const start = at.toISOString();
  if (!dateOnly) return sql`(${spec.sql} ${COMPARATORS[op]} ${start}::timestamptz)`;
  const end = new Date(at.getTime() + 86_400_000).toISOString();
  switch (op) {
    case '=':
      return sql`(${spec.sql} >= ${start}::timestamptz AND ${spec.sql} < ${end}::timestamptz)`;
    case '!=':
      return sql`(${spec.sql} < ${start}::timestamptz OR ${spec.sql} >= ${end}::timestamptz)`;
    case '<':
    case '>=':
      return sql`(${spec.sql} ${COMPARATORS[op]} ${start}::timestamptz)`;
    default: // '<=' and '>' take in or skip the whole day
      return sql`(${spec.sql} ${op === '<=' ? COMPARATORS['<'] : COMPARATORS['>=']} ${end}::timestamptz)`;
  }
}

function stringOf(value: Literal, field: string): string {
  if (value.kind !== 'string') throw new FilterError(value.position, `'${field}' takes a quoted string`);
  return value.value;
}
