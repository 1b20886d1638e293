import { invalidField } from '@kw/platform-errors';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADER_NAME_MAX,
  WEBHOOK_HEADER_VALUE_MAX,
  WEBHOOK_HEADERS_MAX,
  WEBHOOK_NAME_MAX,
  type WebhookEventType,
} from '../webhooks-limits.js';
import type { HeaderPair } from './webhook-secrets.js';
import { MASKED_VALUE } from './webhook-view.js';

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII and spaces/tabs: no CR/LF (header injection) and no control characters. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** Set by the platform on every delivery, or by the HTTP client: not the configuration's to choose. */
const RESERVED_HEADERS = new Set([
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'expect',
  'keep-alive',
  'proxy-authorization',
  'trailer',
]);

export function validName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > WEBHOOK_NAME_MAX)
    throw invalidField('name', `must be 1 to ${WEBHOOK_NAME_MAX} characters`);
  return trimmed;
}

/** A non-empty selection of released event kinds, deduplicated; anything else is 400. */
export function validEvents(events: readonly string[]): WebhookEventType[] {
  if (events.length === 0)
    throw invalidField('events', `must select at least one of: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  const unknown = events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0)
    throw invalidField(
      'events',
      `unknown event kind(s): ${unknown.join(', ')}; released kinds: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    );
  return [...new Set(events)] as WebhookEventType[];
}

/** One released event kind (the test trigger's `eventType`); anything else is 400 naming that field. */
export function validEventType(eventType: string): WebhookEventType {
  if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(eventType))
    throw invalidField('eventType', `must be one of: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  return eventType as WebhookEventType;
}

export function validHeaders(headers: readonly HeaderPair[]): HeaderPair[] {
  if (headers.length > WEBHOOK_HEADERS_MAX) throw invalidField('headers', `at most ${WEBHOOK_HEADERS_MAX} headers`);
  const seen = new Set<string>();
  return headers.map(({ name, value }) => {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name) || name.length > WEBHOOK_HEADER_NAME_MAX)
      throw invalidField('headers', `header name "${name.slice(0, 80)}" is not a valid HTTP header name`);
    if (RESERVED_HEADERS.has(lower))
      throw invalidField('headers', `header "${name}" is set by the platform and cannot be configured`);
    if (seen.has(lower)) throw invalidField('headers', `header "${name}" is given twice`);
    seen.add(lower);
    if (!HEADER_VALUE.test(value) || value.length > WEBHOOK_HEADER_VALUE_MAX)
      throw invalidField(
        'headers',
        `the value of header "${name}" must be printable ASCII of at most ${WEBHOOK_HEADER_VALUE_MAX} characters`,
      );
    return { name, value };
  });
}

/**
 * Configured headers as sent, where a value that is exactly the mask answers give (`********`)
 * stands for the value stored for that header name (case-insensitive): a client that sends back
 * what it read keeps the real value. The mask is never stored: for a header without a stored
 * value it is refused. `stored` is empty on create.
 */
export function headersKeepingMasked(headers: readonly HeaderPair[], stored: readonly HeaderPair[]): HeaderPair[] {
  const storedValues = new Map(stored.map(({ name, value }) => [name.toLowerCase(), value]));
  return headers.map(({ name, value }) => {
    if (value !== MASKED_VALUE) return { name, value };
    const kept = storedValues.get(name.toLowerCase());
    if (kept === undefined)
      throw invalidField(
        'headers',
        `the value of header "${name.slice(0, 80)}" is the mask ${MASKED_VALUE}, which only stands for a value already stored; send the real value`,
      );
    return { name, value: kept };
  });
}
