import { AppError, ErrorCode } from '@kw/platform-errors';
import { ACTIONS, ALL_SCOPES, type Action } from './actions.js';

/** Every value a token scope may take. */
export const VALID_SCOPES: readonly string[] = [ALL_SCOPES, ...ACTIONS];

/** True when the scopes of a credential include the action. Unknown scopes grant nothing. */
export function scopeAllows(scopes: readonly string[], action: Action): boolean {
  return scopes.includes(ALL_SCOPES) || scopes.includes(action);
}

/**
 * Checks scopes asked for by a client (token creation or update) and returns them without
 * duplicates. Unknown values are refused, not dropped, so a typo never yields a token that
 * silently lacks what its owner meant to grant.
 */
export function validateScopes(requested: readonly unknown[]): string[] {
  const unknown = requested.filter((s) => typeof s !== 'string' || !VALID_SCOPES.includes(s));
  if (unknown.length > 0) {
    const named = unknown.map((s) => (typeof s === 'string' ? `'${s}'` : String(s))).join(', ');
    const problem = `unknown scope ${named}; valid scopes are ${VALID_SCOPES.join(', ')}`;
    throw new AppError({
      status: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: `scopes: ${problem}`,
      details: { fields: [{ field: 'scopes', problems: [problem] }], validScopes: VALID_SCOPES },
      param: 'scopes',
    });
  }
  if (requested.length === 0) {
    const problem = 'at least one scope is required';
    throw new AppError({
      status: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: `scopes: ${problem}`,
      details: { fields: [{ field: 'scopes', problems: [problem] }], validScopes: VALID_SCOPES },
      param: 'scopes',
    });
  }
  return [...new Set(requested as string[])];
}

export interface NarrowedScopes {
  /** What the new token gets: `*` only if both sides have it, otherwise explicit actions in vocabulary order. */
  scopes: string[];
  /** Requested actions (named, or implied by `*`) the creator's credential lacks: reported, never granted. */
  dropped: Action[];
}

/**
 * The scopes a new or updated token may carry: the requested ones that the creating
 * credential itself holds. A token can therefore never exceed the token that made it;
 * `*` requested by a narrower creator becomes the creator's own explicit list.
 */
export function narrowScopes(requested: readonly string[], granted: readonly string[]): NarrowedScopes {
  const wantsAll = requested.includes(ALL_SCOPES);
  const hasAll = granted.includes(ALL_SCOPES);
  if (wantsAll && hasAll) return { scopes: [ALL_SCOPES], dropped: [] };
  const wanted = ACTIONS.filter((a) => wantsAll || requested.includes(a));
  const scopes = wanted.filter((a) => scopeAllows(granted, a));
  const dropped = wanted.filter((a) => !scopeAllows(granted, a));
  return { scopes, dropped };
}

/** The workspace restriction of a credential (fields of AuthContext). */
export interface WorkspaceGrant {
  workspaceIds: readonly string[];
  allWorkspaces: boolean;
}

/**
 * Whether a credential's workspace restriction lets it reach a workspace (whether the user does,
 * as a member, is another check). A restricted credential finds nothing outside its list.
 */
export function grantReaches(grant: WorkspaceGrant, workspaceId: string): boolean {
  return grant.allWorkspaces || grant.workspaceIds.includes(workspaceId);
}

/**
 * The workspaces a credential is restricted to, as a filter for what a query may return, or
 * undefined when it reaches every workspace of its user.
 */
export function grantedWorkspaceIds(grant: WorkspaceGrant): readonly string[] | undefined {
  return grant.allWorkspaces ? undefined : grant.workspaceIds;
}

/**
 * The workspaces a new or updated token may be restricted to: the requested ones the creating
 * credential reaches. An unrestricted request from a restricted creator inherits the
 * creator's list, never "all workspaces".
 */
export function narrowWorkspaces(
  requested: WorkspaceGrant,
  granted: WorkspaceGrant,
): { workspaceIds: string[]; allWorkspaces: boolean } {
  if (granted.allWorkspaces) {
    return requested.allWorkspaces
      ? { workspaceIds: [], allWorkspaces: true }
      : { workspaceIds: [...new Set(requested.workspaceIds)], allWorkspaces: false };
  }
  const ids = requested.allWorkspaces
    ? granted.workspaceIds
    : requested.workspaceIds.filter((id) => granted.workspaceIds.includes(id));
  return { workspaceIds: [...new Set(ids)], allWorkspaces: false };
}
