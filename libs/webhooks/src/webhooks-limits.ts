/** The event kinds a webhook may select (spec: Events; nothing else is released). */
export const WEBHOOK_EVENT_TYPES = ['fragment.created', 'fragment.updated', 'fragment.deleted'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

// The limits of the write messages' fields live in @kw/contracts, where the service's hop enforces them.
export { WEBHOOK_NAME_MAX, WEBHOOK_URL_MAX } from '@kw/contracts';
/** Endpoints per workspace: fan-out cost per event grows with it. */
export const WEBHOOKS_PER_WORKSPACE_MAX = 25;
export const WEBHOOK_HEADERS_MAX = 10;
export const WEBHOOK_HEADER_NAME_MAX = 64;
export const WEBHOOK_HEADER_VALUE_MAX = 4096;
/** How long previous secrets keep signing after a rotation, by default and at most. */
export const SECRET_OVERLAP_DEFAULT_SECONDS = 24 * 3600;
export const SECRET_OVERLAP_MAX_SECONDS = 7 * 24 * 3600;
export const DELIVERIES_LIMIT_DEFAULT = 50;
export const DELIVERIES_LIMIT_MAX = 200;
/** Standard Webhooks' suggested schedule: about a day and a half in all, eight attempts. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
export const DELIVERY_TIMEOUT_MS = 15_000;
/** A Retry-After longer than this is capped (a receiver cannot park a delivery for weeks). */
export const RETRY_AFTER_MAX_MS = 24 * 3600_000;
