const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Path ids that are not UUIDs are answered like unknown ids (404, same body), never 400:
 * probing with malformed ids then tells nothing, and the database never sees them.
 */
export const isUuid = (value: string): boolean => UUID.test(value);
