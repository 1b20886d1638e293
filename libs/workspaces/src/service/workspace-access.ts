import { Inject, Injectable } from '@nestjs/common';
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
import { WORKSPACES_DB, type ControlDb, type ControlTx, type WorkspaceRow } from './control-db.js';
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

/** One row of WorkspaceAccess.load's statement: the workspace's columns, its zone's endpoint, the user's role and subscription. */
type LoadedRow = Omit<WorkspaceRow, 'hostedZone'> & {
  endpointUrl: string | null;
  hasZone: boolean;
  role: string | null;
  subscribed: boolean;
};

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
  constructor(@Inject(WORKSPACES_DB) private readonly db: ControlDb) {}

  /**
   * The workspace (undefined when the id is malformed or unknown) and the user's relation, in
   * one statement: every data-plane request asks this (ResolveAccess), and the relational
   * include it replaces cost four queries and four query compilations per request.
   */
  async load(workspaceId: string, userId: string, db: ControlTx = this.db): Promise<Loaded> {
    if (!isUuid(workspaceId) || !isUuid(userId)) return { workspace: undefined, relation: 'none' };
    const rows = await db.$queryRaw<LoadedRow[]>`
      SELECT w.id::text AS id, w.name, w.description, w.visibility, w.status, w.hosted_zone_id::text AS "hostedZoneId",
             w.settings, w.created_by::text AS "createdBy", w.created_at AS "createdAt", w.updated_at AS "updatedAt",
             w.archived_at AS "archivedAt", z.endpoint_url AS "endpointUrl", (z.id IS NOT NULL) AS "hasZone",
             m.role, (s.user_id IS NOT NULL) AS subscribed
        FROM control.workspaces w
        LEFT JOIN control.hosted_zones z ON z.id = w.hosted_zone_id
        LEFT JOIN control.workspace_members m ON m.workspace_id = w.id AND m.user_id = ${userId}::uuid
        LEFT JOIN control.workspace_subscriptions s ON s.workspace_id = w.id AND s.user_id = ${userId}::uuid
       WHERE w.id = ${workspaceId}::uuid`;
    const row = rows[0];
    if (!row) return { workspace: undefined, relation: 'none' };
    const { endpointUrl, hasZone, role, subscribed, ...workspace } = row;
    return {
      workspace: { ...workspace, hostedZone: hasZone ? { endpointUrl } : null },
      relation: relationFrom(role ?? undefined, subscribed),
    };
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
