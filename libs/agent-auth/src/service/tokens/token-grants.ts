import {
  ALL_SCOPES,
  narrowScopes,
  narrowWorkspaces,
  scopeAllows,
  validateScopes,
  type Action,
  type WorkspaceGrant,
} from '@kw/platform-access-policy';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';

/** What a token reaches: its scopes and its workspace restriction. */
export interface TokenGrant extends WorkspaceGrant {
  scopes: readonly string[];
}

export interface NarrowedGrant {
  scopes: string[];
  allWorkspaces: boolean;
  workspaceIds: string[];
  droppedScopes: string[];
  droppedWorkspaceIds: string[];
}

/** An empty workspace list would make a token that reaches nothing: said as the consent page says it. */
const noWorkspaceChosen = () => invalidField('workspaceIds', 'choose at least one workspace, or all of them');

/**
 * The grant of a new token: the requested scopes and workspaces that the creating credential
 * itself holds (a token never mints a broader one). `admin` is held only by a platform
 * administrator's account, whatever its credential's scopes say (a session has `*`). What is
 * left out is reported, not granted; a token that would reach no workspace at all is refused,
 * not minted.
 */
export function grantForNewToken(
  requested: TokenGrant,
  creator: TokenGrant,
  account: { platformAdmin: boolean },
): NarrowedGrant {
  const valid = validateScopes(requested.scopes);
  if (!requested.allWorkspaces && requested.workspaceIds.length === 0) throw noWorkspaceChosen();
  const scopes = narrowScopes(valid, creator.scopes);
  if (!account.platformAdmin && scopes.scopes.includes('admin')) {
    scopes.scopes = scopes.scopes.filter((s) => s !== 'admin');
    scopes.dropped = [...scopes.dropped, 'admin'];
  }
  if (scopes.scopes.length === 0) {
    throw new AppError({
      status: 403,
      code: ErrorCode.FORBIDDEN,
      message: 'Your credential holds none of the requested scopes',
    });
  }
  const workspaces = narrowWorkspaces(requested, creator);
  if (!workspaces.allWorkspaces && workspaces.workspaceIds.length === 0) throw noWorkspaceReached();
  const droppedWorkspaceIds = requested.allWorkspaces
    ? []
    : [...new Set(requested.workspaceIds)].filter((id) => !workspaces.workspaceIds.includes(id));
  return { scopes: scopes.scopes, ...workspaces, droppedScopes: scopes.dropped, droppedWorkspaceIds };
}

/**
 * A new token's workspace list keeps only the workspaces its user reaches (a member's, or
 * public ones): another account's private workspace and a made-up id alike are dropped, and a
 * list of nothing else is refused (403), not minted.
 */
export function keepReachable(grant: NarrowedGrant, reached: readonly string[]): NarrowedGrant {
  if (grant.allWorkspaces) return grant;
  const { workspaceIds, dropped } = keepReachableIds(grant.workspaceIds, reached);
  return { ...grant, workspaceIds, droppedWorkspaceIds: [...grant.droppedWorkspaceIds, ...dropped] };
}

/**
 * The rule of `keepReachable` for any workspace list that a credential or a grant will be
 * restricted to (a new token's, an OAuth consent's or an agent claim's): the ids `reached`
 * are kept, the others dropped alike (the answer tells no private workspace from a made-up
 * id), and a list that keeps none is refused (403): nothing that reaches nothing is made.
 */
export function keepReachableIds(
  requested: readonly string[],
  reached: readonly string[],
): { workspaceIds: string[]; dropped: string[] } {
  const workspaceIds = requested.filter((id) => reached.includes(id));
  if (workspaceIds.length === 0) throw noWorkspaceReached();
  return { workspaceIds, dropped: requested.filter((id) => !reached.includes(id)) };
}

const noWorkspaceReached = () =>
  new AppError({
    status: 403,
    code: ErrorCode.FORBIDDEN,
    message: 'Your credential reaches none of the requested workspaces',
  });

/** New scopes of an existing token: a subset of what it has. Adding one is refused (400). */
export function narrowedScopes(requested: readonly string[], current: readonly string[]): string[] {
  const scopes = validateScopes(requested);
  const added = scopes.filter((s) =>
    s === ALL_SCOPES ? !current.includes(ALL_SCOPES) : !scopeAllows(current, s as Action),
  );
  if (added.length > 0)
    throw invalidField(
      'scopes',
      `a token's scopes can only be narrowed; it does not have ${added.map((s) => `'${s}'`).join(', ')}`,
    );
  return scopes;
}

/** New workspace restriction of an existing token: a subset of what it reaches. */
export function narrowedWorkspaces(requested: readonly string[], current: WorkspaceGrant): string[] {
  const ids = [...new Set(requested)];
  if (ids.length === 0) throw noWorkspaceChosen();
  if (current.allWorkspaces) return ids;
  const added = ids.filter((id) => !current.workspaceIds.includes(id));
  if (added.length > 0)
    throw invalidField(
      'workspaceIds',
      `a token's workspaces can only be narrowed; it is not restricted to ${added.join(', ')}`,
    );
  return ids;
}

/** An expiry from a client: ISO 8601 in the future. */
export function parseFutureExpiry(value: string, now: Date): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw invalidField('expiresAt', 'must be an ISO 8601 timestamp');
  if (at <= now) throw invalidField('expiresAt', 'must be in the future');
  return at;
}

/** A token made or changed by an expiring token never outlives it. */
export function capExpiry(expiresAt: Date | null, creatorExpiresAt: Date | null): Date | null {
  if (!creatorExpiresAt) return expiresAt;
  return !expiresAt || expiresAt > creatorExpiresAt ? creatorExpiresAt : expiresAt;
}
