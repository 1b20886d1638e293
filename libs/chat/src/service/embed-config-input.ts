import { invalidField } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { refusedUrlForm } from '@kw/platform-net';
import {
  EMBED_CONTEXT_TYPES,
  EMBED_FEEDBACK_MODES,
  EMBED_ISSUER_MAX,
  EMBED_JWKS_JSON_MAX_BYTES,
  EMBED_THEMES,
} from '../chat-limits.js';
import type { ContextItemRow, EmbedFeaturesRow, TrustedIssuerRow } from '../persistence/embed-configs.repository.js';

export function validConfigName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidField('name', 'must not be empty');
  return trimmed;
}

/** Unset features are off; feedback is `off` unless one of the documented modes is chosen. */
export function validFeatures(features: Partial<EmbedFeaturesRow> | undefined): EmbedFeaturesRow {
  const mode = features?.feedbackMode || 'off';
  if (!(EMBED_FEEDBACK_MODES as readonly string[]).includes(mode)) {
    throw invalidField('features.feedbackMode', `must be one of ${EMBED_FEEDBACK_MODES.join(', ')}`);
  }
  const theme = features?.theme || 'auto';
  if (!(EMBED_THEMES as readonly string[]).includes(theme)) {
    throw invalidField('features.theme', `must be one of ${EMBED_THEMES.join(', ')}`);
  }
  return {
    feedbackMode: mode,
    theme,
    structuredQuestions: features?.structuredQuestions ?? false,
    webSearch: features?.webSearch ?? false,
    exposeWorkspaceFilesToParent: features?.exposeWorkspaceFilesToParent ?? false,
  };
}

/** Context items are checked for form here; access is checked at every use, as the user chatting. */
export function validContext(items: ContextItemRow[]): ContextItemRow[] {
  return items.map((item, i) => {
    if (!(EMBED_CONTEXT_TYPES as readonly string[]).includes(item.contextType)) {
      throw invalidField(`defaultContext[${i}].contextType`, `must be one of ${EMBED_CONTEXT_TYPES.join(', ')}`);
    }
    if (!isUuid(item.contextId)) throw invalidField(`defaultContext[${i}].contextId`, 'must be a UUID');
    return { contextType: item.contextType, contextId: item.contextId.toLowerCase() };
  });
}

/** Why a JWKS URL may not be saved, or null: the form checks of the fetch guard (no DNS here). */
function refusedJwksUrl(value: string, policy: JwksUrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  return refusedUrlForm(url, policy);
}

/** EMBED_JWKS_ALLOW_PRIVATE (a test setting) opens plain HTTP and loopback/private hosts. */
export interface JwksUrlPolicy {
  allowPrivate: boolean;
}

/**
 * The issuer of the host page's JWTs: its `iss`, the audience its tokens must name, and its keys
 * (a JWKS URL, or a JWKS document). Checked for form here: a JWKS URL must be public HTTPS, and a
 * host that is a literal address or localhost is judged now; a name is resolved and checked
 * again at every fetch (HostIdentity), since DNS can point it anywhere later.
 */
export function validIssuer(issuer: TrustedIssuerRow, policy: JwksUrlPolicy): TrustedIssuerRow {
  const at = 'trustedIssuer';
  if (!issuer.issuer.trim() || issuer.issuer.length > EMBED_ISSUER_MAX)
    throw invalidField(`${at}.issuer`, 'is required');
  if (!issuer.audience.trim() || issuer.audience.length > EMBED_ISSUER_MAX)
    throw invalidField(`${at}.audience`, 'is required');
  if (!issuer.jwksUrl === !issuer.jwksJson) throw invalidField(`${at}.jwksUrl`, 'give exactly one of jwksUrl and jwks');
  if (issuer.jwksUrl) {
    const refused = issuer.jwksUrl.length > EMBED_ISSUER_MAX ? 'too long' : refusedJwksUrl(issuer.jwksUrl, policy);
    if (refused) throw invalidField(`${at}.jwksUrl`, `must be a public https URL (${refused})`);
  }
  if (issuer.jwksJson) {
    if (Buffer.byteLength(issuer.jwksJson) > EMBED_JWKS_JSON_MAX_BYTES)
      throw invalidField(`${at}.jwks`, 'is too large');
    let keys: unknown;
    try {
      keys = (JSON.parse(issuer.jwksJson) as { keys?: unknown }).keys;
    } catch {
      keys = undefined;
    }
    if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k?.kty === 'string')) {
      throw invalidField(`${at}.jwks`, 'must be a JWKS: {"keys": [{"kty": ...}, ...]}');
    }
  }
  return {
    issuer: issuer.issuer.trim(),
    audience: issuer.audience.trim(),
    jwksUrl: issuer.jwksUrl,
    jwksJson: issuer.jwksJson,
  };
}

/** An allowed origin as browsers send it in `Origin`: scheme, host and port, nothing else. */
export function validOrigins(origins: string[]): string[] {
  return [
    ...new Set(
      origins.map((origin, i) => {
        let url: URL | undefined;
        try {
          url = new URL(origin);
        } catch {
          url = undefined;
        }
        const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
        if (!url || !bare || !['http:', 'https:'].includes(url.protocol)) {
          throw invalidField(`allowedDomains[${i}]`, 'must be an origin such as https://example.com (no path)');
        }
        // The URL parser keeps `*` in a host, but an Origin header never has one: it would never match.
        if (url.hostname.includes('*')) {
          throw invalidField(`allowedDomains[${i}]`, 'wildcards are not supported: list each origin');
        }
        return url.origin;
      }),
    ),
  ];
}

/** An expiry in the future, or null for none. */
export function validExpiry(value: string): Date | null {
  if (!value) return null;
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    throw invalidField('expiresAt', 'must be an ISO 8601 timestamp');
  }
  if (at.getTime() <= Date.now()) throw invalidField('expiresAt', 'must be in the future');
  return at;
}
