import type { Capability } from './permission-matrix.js';

/** The actions of the platform: the scope vocabulary of personal access tokens. */
export const ACTIONS = [
  'workspaces:read',
  'workspaces:write',
  'workspaces:delete',
  'members:read',
  'members:manage',
  'fragments:read',
  'fragments:write',
  'fragments:delete',
  'collections:read',
  'collections:write',
  'files:read',
  'files:write',
  'search:read',
  'webhooks:manage',
  'tokens:manage',
  'hosted-zones:manage',
  'profile:read',
  'profile:write',
  'chat:use',
  'vault:manage',
  'applications:manage',
  'admin',
] as const;
export type Action = (typeof ACTIONS)[number];

/**
 * Actions a user may delegate to an agent or an OAuth application (docs/agent-authentication.md):
 * all but minting personal access tokens, administering the platform, registering applications
 * and placing hosted zones, which stay with the person.
 */
export const DELEGABLE_ACTIONS: readonly Action[] = ACTIONS.filter(
  (a) => a !== 'tokens:manage' && a !== 'admin' && a !== 'applications:manage' && a !== 'hosted-zones:manage',
);

/** The scope that stands for every action, present and future. */
export const ALL_SCOPES = '*';

/** Content actions depend on who created the content: the capability for own and for anyone's. */
export interface OwnershipNeed {
  own: Capability;
  any: Capability;
}

/**
 * What an action needs besides the token scope of the same name:
 * - a workspace capability (or an own/any pair), when it is performed in a workspace;
 * - 'account': it concerns the caller's own account and never a workspace;
 * - 'platformAdmin': platform administration, granted by the account, never by a workspace role.
 */
export type ActionNeed = Capability | OwnershipNeed | 'account' | 'platformAdmin';

export interface ActionDefinition {
  description: string;
  needs: ActionNeed;
}

const WRITE: OwnershipNeed = { own: 'writeOwn', any: 'writeAny' };
const DELETE: OwnershipNeed = { own: 'deleteOwn', any: 'deleteAny' };

export const ACTION_DEFINITIONS: Readonly<Record<Action, ActionDefinition>> = {
  'workspaces:read': { needs: 'read', description: 'List, discover and read workspaces; subscribe to public ones' },
  'workspaces:write': { needs: 'updateSettings', description: 'Create workspaces; update their metadata and settings' },
  'workspaces:delete': { needs: 'deleteWorkspace', description: 'Archive (delete) and restore workspaces' },
  'members:read': { needs: 'seeMembers', description: 'List members and pending invitations' },
  'members:manage': { needs: 'manageMembers', description: 'Invite, re-role and remove members; revoke invitations' },
  'fragments:read': { needs: 'read', description: 'Read and list memory fragments and fragment types' },
  'fragments:write': { needs: WRITE, description: 'Create and update memory fragments and fragment types' },
  'fragments:delete': { needs: DELETE, description: 'Delete or archive memory fragments and fragment types' },
  'collections:read': { needs: 'read', description: 'Read collections and their membership' },
  'collections:write': { needs: WRITE, description: 'Create, update and delete collections; add and remove fragments' },
  'files:read': { needs: 'read', description: 'List and download files and attachments' },
  'files:write': { needs: WRITE, description: 'Upload, attach, replace and delete files' },
  'search:read': { needs: 'read', description: 'Search and graph retrieval over readable workspaces' },
  'webhooks:manage': { needs: 'manageWebhooks', description: 'Configure, inspect and test workspace webhooks' },
  'tokens:manage': { needs: 'account', description: "Create, inspect, update and revoke the user's access tokens" },
  'hosted-zones:manage': {
    needs: 'account',
    description: "Create, inspect, update and delete the user's hosted zones and their enrollment tokens",
  },
  'profile:read': { needs: 'account', description: "Read the user's profile, notifications and subscription" },
  'profile:write': { needs: 'account', description: "Update the user's profile and notification settings" },
  'chat:use': {
    needs: 'read',
    description: 'Use chat, AI helpers and the OpenAI-compatible API (over readable workspaces)',
  },
  'vault:manage': { needs: 'account', description: "Create, list, update and delete the user's vault secrets" },
  'applications:manage': {
    needs: 'account',
    description: "Manage the user's applications, embed configurations, keys and experts",
  },
  admin: { needs: 'platformAdmin', description: 'Platform administration (requires a platform administrator account)' },
};

export const isAction = (value: unknown): value is Action =>
  typeof value === 'string' && (ACTIONS as readonly string[]).includes(value);

/** True for actions performed in a workspace (decided by `decide`), false for account-level ones. */
export function isWorkspaceAction(action: Action): boolean {
  const need = ACTION_DEFINITIONS[action].needs;
  return need !== 'account' && need !== 'platformAdmin';
}

/** The capability an action needs in a workspace for content the caller does or does not own. */
export function capabilityFor(action: Action, ownContent: boolean): Capability | undefined {
  const need = ACTION_DEFINITIONS[action].needs;
  if (need === 'account' || need === 'platformAdmin') return undefined;
  if (typeof need === 'string') return need;
  return ownContent ? need.own : need.any;
}
