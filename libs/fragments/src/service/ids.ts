const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids that are not UUIDs are answered like unknown ids (404), and the database never sees them. */
export const isUuid = (value: string): boolean => UUID.test(value);
