const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a value can name a record: every id the platform issues is a UUID. Services check it
 * before any lookup, so a malformed id is answered like an unknown one (404) or refused (400)
 * without reaching the database, where a cast to uuid would fail.
 */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
