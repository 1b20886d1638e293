/**
 * Milliseconds a receiver asks us to wait, from a Retry-After header: delta-seconds or an
 * HTTP-date (RFC 9110 §10.2.3). A date in the past is 0; anything unparseable is undefined.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only accept things that look like a date, so a bare "-5" or "1.5" is not read as a year.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
