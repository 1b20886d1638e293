import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';

/** The browser origins allowed to call the MCP endpoint: MCP_ALLOWED_ORIGINS (the deployment's own is added per request). */
export function allowedOrigins(config: AppConfig): Set<string> {
  // Each one an http(s) URL: the configuration refused anything else at start-up.
  return new Set((config.MCP_ALLOWED_ORIGINS ?? []).map((o) => new URL(o).origin));
}

/**
 * The MCP transport specification: servers must validate Origin to prevent DNS rebinding. A
 * request without Origin is not from a browser page and passes (undefined); a present, unlisted
 * one is 403. Answers the admitted origin, serialized (scheme://host[:port]), for CORS.
 */
export function checkOrigin(origin: string | undefined, allowed: Set<string>, own: string): string | undefined {
  if (origin === undefined) return undefined;
  const admitted = admittedOrigin(origin, allowed, own);
  if (admitted === undefined)
    throw new AppError({
      status: 403,
      code: ErrorCode.FORBIDDEN,
      message: `Origin ${origin.slice(0, 200)} is not allowed to call the MCP endpoint`,
    });
  return admitted;
}

/** The origin serialized (scheme://host[:port]) if it is the deployment's own or an allowed one; undefined otherwise. */
export function admittedOrigin(origin: string, allowed: Set<string>, own: string): string | undefined {
  let normalized: string;
  try {
    normalized = new URL(origin).origin;
  } catch {
    return undefined;
  }
  return normalized === new URL(own).origin || allowed.has(normalized) ? normalized : undefined;
}

/** What a browser page of an admitted origin may send (the preflight's Access-Control-Allow-Headers). */
export const CORS_ALLOWED_HEADERS = 'authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id';
/** What its script may read of an answer: the session id, and the challenge of a 401 (OAuth discovery). */
export const CORS_EXPOSED_HEADERS = 'Mcp-Session-Id, WWW-Authenticate';
/** How long a browser may keep a preflight's answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/** The CORS headers of every answer to an admitted origin (the preflight adds its own). */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': CORS_EXPOSED_HEADERS,
  };
}
