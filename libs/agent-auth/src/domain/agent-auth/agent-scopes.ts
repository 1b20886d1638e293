import { DELEGABLE_ACTIONS } from '@kw/platform-access-policy';
import { oauthError } from './oauth-errors.js';

/**
 * Scopes an agent or an OAuth application can hold, whoever approves: never minting personal
 * access tokens, administering the platform, registering applications or placing hosted zones.
 */
export const AGENT_SCOPES: readonly string[] = DELEGABLE_ACTIONS;

/** What an agent gets when it names no scope: work with knowledge, not manage the account. */
export const DEFAULT_AGENT_SCOPES: readonly string[] = [
  'workspaces:read',
  'fragments:read',
  'fragments:write',
  'collections:read',
  'files:read',
  'search:read',
  'chat:use',
  'profile:read',
];

/** A space-separated OAuth scope string to agent scopes; undefined when absent. Unknown or forbidden: invalid_scope. */
export function parseAgentScope(scope: string | undefined): string[] | undefined {
  if (scope === undefined || scope.trim() === '') return undefined;
  const names = [...new Set(scope.trim().split(/\s+/))];
  const refused = names.filter((n) => !AGENT_SCOPES.includes(n));
  if (refused.length > 0) throw oauthError('invalid_scope', `Scopes an agent cannot hold: ${refused.join(' ')}`);
  return names;
}

/** `requested` narrowed to what `held` allows; invalid_scope when it asks for more. */
export function narrowScopes(held: readonly string[], requested: string[] | undefined): string[] {
  if (!requested) return [...held];
  const extra = requested.filter((s) => !held.includes(s));
  if (extra.length > 0) throw oauthError('invalid_scope', `Scopes beyond the grant: ${extra.join(' ')}`);
  return requested;
}
