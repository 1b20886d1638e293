import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@kw/platform-context';
import {
  assertAllowed,
  decide,
  isWorkspaceRole,
  type Action,
  type CallerAuth,
  type Decision,
  type Relation,
  type Visibility,
} from '@kw/platform-access-policy';
import { callerOf } from './caller.js';
import type { WorkspaceRow } from '../persistence/rows.js';
import { WorkspacesRepository } from '../persistence/workspaces.repository.js';
import { isUuid } from '@kw/platform-ids';

/** A workspace the caller was allowed to act on, with how the caller stands towards it. */
export interface AuthorizedWorkspace {
  workspace: WorkspaceRow;
  relation: Relation;
  userId: string;
  auth: CallerAuth;
}

export interface Loaded {
  workspace: WorkspaceRow | undefined;
  relation: Relation;
}

export interface AuthorizeOptions {
  /** Restoring the archived workspace (action 'workspaces:delete'). */
  restoring?: boolean;
}

/**
 * Loads a workspace and the caller's relation to it from this component's own tables and
 * asks the access policy: every handler goes through here, so no workspace id sent by a
 * client is trusted and every hidden workspace answers the same 404.
 */
@Injectable()
export class WorkspaceAccess {
  constructor(private readonly workspaces: WorkspacesRepository) {}

  /** The workspace (undefined when the id is malformed or unknown) and the user's relation. */
  async load(workspaceId: string, userId: string): Promise<Loaded> {
    if (!isUuid(workspaceId) || !isUuid(userId)) return { workspace: undefined, relation: 'none' };
    const found = await this.workspaces.findWithRelation(workspaceId, userId);
    if (!found) return { workspace: undefined, relation: 'none' };
    return { workspace: found.workspace, relation: relationFrom(found.role, found.subscribed) };
  }

  /** The policy's decision for the caller on this workspace, without throwing. */
  async decision(
    context: RequestContext,
    workspaceId: string,
    action: Action,
    options: AuthorizeOptions = {},
  ): Promise<{ decision: Decision } & Loaded> {
    const { auth, account } = callerOf(context);
    const loaded = auth?.userId
      ? await this.load(workspaceId, auth.userId)
      : { workspace: undefined, relation: 'none' as const };
    const decision = decide({
      auth,
      account,
      workspace: stateOf(loaded.workspace),
      relation: loaded.relation,
      action,
      restoring: options.restoring,
    });
    return { decision, ...loaded };
  }

  /** Throws the policy's 401/403/404 unless the caller may perform `action` on the workspace. */
  async authorize(
    context: RequestContext,
    workspaceId: string,
    action: Action,
    options: AuthorizeOptions = {},
  ): Promise<AuthorizedWorkspace> {
    const { auth, account } = callerOf(context);
    const loaded = auth?.userId
      ? await this.load(workspaceId, auth.userId)
      : { workspace: undefined, relation: 'none' as const };
    assertAllowed({
      auth,
      account,
      workspace: stateOf(loaded.workspace),
      relation: loaded.relation,
      action,
      restoring: options.restoring,
    });
    return { workspace: loaded.workspace!, relation: loaded.relation, userId: auth!.userId, auth: auth! };
  }
}

export function relationFrom(role: string | undefined, subscribed: boolean): Relation {
  if (isWorkspaceRole(role)) return role;
  return subscribed ? 'subscriber' : 'none';
}

export function stateOf(workspace: WorkspaceRow | undefined) {
  return (
    workspace && {
      id: workspace.id,
      visibility: workspace.visibility as Visibility,
      archived: workspace.archivedAt !== null,
    }
  );
}
