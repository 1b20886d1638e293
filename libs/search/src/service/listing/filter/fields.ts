import { DEFAULT_SELECT, SELECTABLE_FIELDS, SORTABLE_FIELDS } from '../../../domain/listing-fields.js';
import { raw, type SqlFragment } from './sql-fragment.js';

/** How a field compares: which operators it takes and how its values are read. */
export type FieldKind = 'text' | 'uuid' | 'date' | 'tags' | 'number';

export interface FieldSpec {
  kind: FieldKind;
  /** The SQL for the column: a constant of this file, never text from the request. */
  sql: SqlFragment;
  /** Tags only: the same tags lower-cased, a GIN-indexed column, for `has`. */
  folded?: SqlFragment;
  nullable?: boolean;
  /** Can be named in `select` (the pseudo-field `text` cannot). */
  selectable?: boolean;
  /** Can be named in `orderBy`. */
  sortable?: boolean;
}

const col = (sql: string) => raw(sql);

/**
 * The whitelist of the listing: filter fields, selectable fields and sort keys. The query reads
 * search_read.fragments as `f` joined to search_read.fragment_types as `ft`.
 */
export const FIELDS: Record<string, FieldSpec> = {
  id: { kind: 'uuid', sql: col('f.id'), selectable: true },
  title: { kind: 'text', sql: col('f.title'), selectable: true, sortable: true },
  content: { kind: 'text', sql: col('f.content'), selectable: true },
  summary: { kind: 'text', sql: col('f.summary'), nullable: true, selectable: true },
  /** The fragment type's key ("note"). */
  type: { kind: 'text', sql: col('ft.key'), selectable: true, sortable: true },
  fragmentTypeId: { kind: 'uuid', sql: col('f.fragment_type_id'), selectable: true },
  tags: { kind: 'tags', sql: col('f.tags'), folded: col('f.tags_folded'), selectable: true },
  status: { kind: 'text', sql: col('f.status'), selectable: true, sortable: true },
  key: { kind: 'text', sql: col('f.key'), nullable: true, selectable: true, sortable: true },
  createdVia: { kind: 'text', sql: col('f.created_via'), selectable: true },
  createdBy: { kind: 'uuid', sql: col('f.created_by'), selectable: true },
  updatedBy: { kind: 'uuid', sql: col('f.updated_by'), selectable: true },
  version: { kind: 'number', sql: col('f.version'), selectable: true, sortable: true },
  createdAt: { kind: 'date', sql: col('f.created_at'), selectable: true, sortable: true },
  updatedAt: { kind: 'date', sql: col('f.updated_at'), selectable: true, sortable: true },
  archivedAt: { kind: 'date', sql: col('f.archived_at'), nullable: true, selectable: true, sortable: true },
  /** Pseudo-field: title, summary or content (only `~`). */
  text: { kind: 'text', sql: col("(f.title || ' ' || coalesce(f.summary, '') || ' ' || f.content)") },
};

export const OPERATORS_BY_KIND: Record<FieldKind, readonly string[]> = {
  text: ['=', '!=', '~'],
  uuid: ['=', '!='],
  date: ['=', '!=', '<', '<=', '>', '>='],
  tags: ['has'],
  number: ['=', '!=', '<', '<=', '>', '>='],
};

/** The names the HTTP edge knows (domain/listing-fields.ts) are exactly the flagged fields here. */
export { DEFAULT_SELECT, SELECTABLE_FIELDS, SORTABLE_FIELDS };

/** Own-property lookup: `constructor` or `__proto__` are not fields. */
export const fieldSpec = (name: string): FieldSpec | undefined =>
  Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined;
