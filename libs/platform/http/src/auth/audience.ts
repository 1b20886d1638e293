import { unauthenticated } from './auth-errors.js';

/**
 * Whether a credential bound to an audience path (RFC 8707: an OAuth token for `/api/mcp`) may
 * be used on `url`: the path is the audience or below it (a segment boundary: `/api/mcp`
 * allows `/api/mcp/x`, not `/api/mcpx`). An empty audience allows every path.
 */
export function audienceAllows(audience: string, url: string): boolean {
  if (!audience) return true;
  const path = url.split('?')[0];
  return path === audience || path.startsWith(audience.endsWith('/') ? audience : `${audience}/`);
}

/** Refuses a credential used outside its audience, as an invalid token (401). */
export function assertAudience(audience: string, url: string): void {
  if (!audienceAllows(audience, url)) throw unauthenticated('This token was issued for another resource');
}
