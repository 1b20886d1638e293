import { decide, type AccessInput, type Action } from '@kw/platform-access-policy';

/**
 * The data-plane actions a Leaf serves, in vocabulary order. files:* are absent: Hosted Zone
 * V1 does not support files (a Cloud workspace is used for them). `workspaces:write` (owners)
 * is what a Leaf's owner-only routes need: export and import, search analytics.
 */
export const HANDOFF_ACTIONS: readonly Action[] = [
  'workspaces:write',
  'fragments:read',
  'fragments:write',
  'fragments:delete',
  'collections:read',
  'collections:write',
  'search:read',
  'webhooks:manage',
];

/**
 * What a handoff token may carry: each data-plane action the access policy allows the caller
 * now (role, token scopes, token workspace restriction). Content-ownership actions count as
 * allowed when the caller may act on its own content; the Leaf decides per fragment again.
 */
export function handoffActions(input: Omit<AccessInput, 'action' | 'resourceOwnerId'>): Action[] {
  return HANDOFF_ACTIONS.filter((action) => decide({ ...input, action }).allowed);
}
