import { ErrorCode } from '@kw/platform-errors';
import { ACTION_DEFINITIONS, capabilityFor, isWorkspaceAction, type Action } from './actions.js';
import { relationHas, type Capability } from './permission-matrix.js';
import { effectiveRelation, type Relation, type Visibility } from './roles.js';
import { grantReaches, scopeAllows } from './scopes.js';

/**
 * The parts of the caller's verified identity the policy reads. The generated
 * `AuthContext` of @kw/contracts satisfies it; tests can pass plain objects.
 */
export interface CallerAuth {
  /** Empty for anonymous calls. */
  userId: string;
  scopes: readonly string[];
  workspaceIds: readonly string[];
  allWorkspaces: boolean;
}

/** The issuing user's current account state (looked up, never taken from the token). */
export interface AccountState {
  active: boolean;
  platformAdmin?: boolean;
}

export interface WorkspaceState {
  id: string;
  visibility: Visibility;
  archived: boolean;
}

export interface AccountAccessInput {
  auth: CallerAuth | undefined;
  account: AccountState | undefined;
  action: Action;
}

export interface AccessInput extends AccountAccessInput {
  /** undefined when no such workspace exists. */
  workspace: WorkspaceState | undefined;
  /** The caller's membership role, 'subscriber' for a public subscription, else 'none'. */
  relation: Relation;
  /**
   * Creator of the content the action touches, for own-vs-any rules. Leave it out when the
   * action creates new content (the caller will own it) or is not about one piece of content.
   */
  resourceOwnerId?: string;
  /**
   * The request restores the archived workspace itself (action 'workspaces:delete'): the one
   * thing allowed on an archived workspace, and it needs the restoreWorkspace capability.
   */
  restoring?: boolean;
}

export type DenialReason =
  | 'unauthenticated'
  | 'account_inactive'
  | 'workspace_not_found'
  | 'workspace_archived'
  | 'workspace_outside_token'
  | 'not_a_member'
  | 'scope_missing'
  | 'platform_admin_required'
  | 'role_insufficient'
  | 'not_content_owner';

export interface Denial {
  allowed: false;
  status: 401 | 403 | 404;
  code: typeof ErrorCode.UNAUTHENTICATED | typeof ErrorCode.FORBIDDEN | typeof ErrorCode.NOT_FOUND;
  /** Stable, for logs and metrics. Never sent to the client for 404s. */
  reason: DenialReason;
  /** What the client is told. Identical for every 404, so hidden equals missing. */
  message: string;
}

export type Decision = { allowed: true } | Denial;

/** The one message of every workspace 404: same bytes for missing, archived, hidden and out-of-token. */
export const WORKSPACE_NOT_FOUND_MESSAGE = 'Workspace not found';

const ALLOWED: Decision = Object.freeze({ allowed: true });

const unauthenticated = (reason: DenialReason, message: string): Denial => ({
  allowed: false,
  status: 401,
  code: ErrorCode.UNAUTHENTICATED,
  reason,
  message,
});
const forbidden = (reason: DenialReason, message: string): Denial => ({
  allowed: false,
  status: 403,
  code: ErrorCode.FORBIDDEN,
  reason,
  message,
});
const hidden = (reason: DenialReason): Denial => ({
  allowed: false,
  status: 404,
  code: ErrorCode.NOT_FOUND,
  reason,
  message: WORKSPACE_NOT_FOUND_MESSAGE,
});

/** 401 checks, shared by every decision: who is calling, and may that account act at all. */
function checkCaller(auth: CallerAuth | undefined, account: AccountState | undefined): Denial | undefined {
  if (!auth || !auth.userId) return unauthenticated('unauthenticated', 'Authentication required');
  // An unknown account is treated like a deactivated one: the credential outlived its user.
  if (!account || !account.active) return unauthenticated('account_inactive', 'The account is not active');
  return undefined;
}

/**
 * Decides an action that does not target one workspace: anything about the caller's own
 * account (tokens, profile, vault, applications, admin), and the account-wide form of
 * workspace actions (list or create workspaces, chat without a workspace, search across
 * workspaces). For the latter it only checks the caller and the token scope: every
 * workspace the answer touches must still pass `decide`.
 */
export function decideAccount(input: AccountAccessInput): Decision {
  const { auth, account, action } = input;
  const callerDenial = checkCaller(auth, account);
  if (callerDenial) return callerDenial;
  if (!scopeAllows(auth!.scopes, action))
    return forbidden('scope_missing', `The credential lacks the '${action}' scope`);
  if (ACTION_DEFINITIONS[action].needs === 'platformAdmin' && !account!.platformAdmin) {
    return forbidden('platform_admin_required', 'Platform administrator access is required');
  }
  return ALLOWED;
}

/**
 * Decides an action in one workspace. Order matters and is tested:
 * 401 (caller) → 404 (workspace missing, archived, outside the token, or private and not
 * the caller's) → 403 (token scope) → 403 (role) → 403 (someone else's content).
 * Visibility comes before any 403 so a 403 is only ever given about a workspace the caller
 * can see, and no answer tells a stranger whether a private workspace exists.
 */
export function decide(input: AccessInput): Decision {
  // Account-level actions concern no workspace: whatever workspace came along is irrelevant.
  if (!isWorkspaceAction(input.action)) return decideAccount(input);

  const { auth, account, workspace, action } = input;
  // A programming error, not a denial: restoring is the archive action run backwards.
  if (input.restoring && action !== 'workspaces:delete')
    throw new Error(`restoring needs action 'workspaces:delete', not '${action}'`);
  const callerDenial = checkCaller(auth, account);
  if (callerDenial) return callerDenial;
  const caller = auth!;

  if (!workspace) return hidden('workspace_not_found');
  if (workspace.archived && !input.restoring) return hidden('workspace_archived');
  if (!grantReaches(caller, workspace.id)) return hidden('workspace_outside_token');
  const relation = effectiveRelation(input.relation, workspace.visibility);
  if (relation === 'none') return hidden('not_a_member');

  if (!scopeAllows(caller.scopes, action))
    return forbidden('scope_missing', `The credential lacks the '${action}' scope`);

  const ownContent = input.resourceOwnerId === undefined || input.resourceOwnerId === caller.userId;
  const capability: Capability = input.restoring ? 'restoreWorkspace' : capabilityFor(action, ownContent)!;
  if (relationHas(relation, capability)) return ALLOWED;

  // Say "not yours" only when the role would allow the same action on the caller's own content.
  if (!ownContent && !input.restoring && relationHas(relation, capabilityFor(action, true)!)) {
    return forbidden('not_content_owner', `Your role allows '${action}' only on content you created`);
  }
  return forbidden('role_insufficient', `Your role in this workspace does not allow '${action}'`);
}
