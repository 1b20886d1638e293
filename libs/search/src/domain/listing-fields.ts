/**
 * The field names of the structured listing, as the HTTP edge documents and validates them and
 * the service's whitelist (service/listing/filter/fields.ts) defines them.
 */
export const SELECTABLE_FIELDS = [
  'id',
  'title',
  'content',
  'summary',
  'type',
  'fragmentTypeId',
  'tags',
  'status',
  'key',
  'createdVia',
  'createdBy',
  'updatedBy',
  'version',
  'createdAt',
  'updatedAt',
  'archivedAt',
];
export const SORTABLE_FIELDS = ['title', 'type', 'status', 'key', 'version', 'createdAt', 'updatedAt', 'archivedAt'];
export const DEFAULT_SELECT = ['id', 'title', 'type', 'tags', 'status', 'createdAt', 'updatedAt'];
