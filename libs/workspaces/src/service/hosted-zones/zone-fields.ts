import { charCount } from '@kw/contracts';
import { badRequest, invalidField } from '@kw/platform-errors';
import { LEAF_VERSION_MAX, ZONE_ENDPOINT_MAX, ZONE_NAME_MAX, ZONE_REGION_MAX } from '../../workspaces-limits.js';

/**
 * Re-validation of zone fields in the service (the HTTP DTOs check them too), in characters as
 * the DTOs count them (a surrogate pair is one), refused in the edge's VALIDATION_FAILED shape.
 */
export function checkZoneName(name: string): string {
  return checkText('name', name, ZONE_NAME_MAX);
}

export function checkRegion(region: string): string {
  return checkText('region', region, ZONE_REGION_MAX);
}

function checkText(field: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed === '') throw invalidField(field, `${field} must not be blank`);
  if (charCount(trimmed) > max)
    throw invalidField(field, `${field} must be shorter than or equal to ${max} characters`);
  return trimmed;
}

/** An http(s) URL without credentials, query or fragment; stored without a trailing slash. */
export function checkEndpointUrl(value: string, field = 'endpointUrl'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField(field, 'must be an http or https URL');
  }
  if (
    !['http:', 'https:'].includes(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    value.length > ZONE_ENDPOINT_MAX
  ) {
    // The same answer as the edge's checks of the field (VALIDATION_FAILED naming it).
    throw invalidField(
      field,
      `must be an http or https URL of at most ${ZONE_ENDPOINT_MAX} characters, without credentials, query or fragment`,
    );
  }
  return url.toString().replace(/\/+$/, '');
}

/** Whether clients reach the endpoint over TLS (the only way a handoff token should travel). */
export function isHttpsEndpoint(value: string | null): boolean {
  if (!value) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** What a Leaf reports as its version: printable, short; empty keeps the stored one. */
export function checkLeafVersion(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length > LEAF_VERSION_MAX || /[^\x20-\x7e]/.test(trimmed))
    throw badRequest(`leafVersion must be at most ${LEAF_VERSION_MAX} printable characters`);
  return trimmed;
}
