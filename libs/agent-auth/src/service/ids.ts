const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids of this service's records are UUIDs; anything else cannot name one (checked before any lookup). */
export const isUuid = (value: string): boolean => UUID.test(value);
