import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { decide, denialError, type Action, type Visibility } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { hostedZoneRequired, type AppError } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';

/** A workspace the caller may act on (never the client's word: ResolveAccess found it). */
export interface Gate {
  workspaceId: string;
  userId: string;
  /** The caller's relation (a member role, subscriber or none). */
  relation: string;
}

export interface GateOptions {
  /** The creator of the content acted on (updates and deletes); left out when creating. */
  resourceOwnerId?: string;
  /** Answer this instead of the workspace 404 (a fragment id must not reveal its workspace). */
  hiddenAs?: () => AppError;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * How data-plane components authorize: they do not own membership, so they ask the workspaces
 * component how the caller stands towards the workspace (WorkspacesService.ResolveAccess) and
 * let the access policy decide. Hidden workspaces answer the same 404 as missing ones; a
 * workspace whose data lives in a hosted zone answers HOSTED_ZONE_REQUIRED. Nothing is cached
 * across requests. Never call inside a database transaction: in embedded mode the workspaces
 * component needs the same single connection.
 */
@Injectable()
export class WorkspaceGate {
  constructor(private readonly client: ServiceClient) {}

  async authorize(context: RequestContext, workspaceId: string, action: Action, options: GateOptions = {}): Promise<Gate> {
    const auth = context.auth;
    const account = auth?.userId ? { active: true } : undefined;
    const access = auth?.userId && UUID.test(workspaceId) ? await this.client.call(WorkspacesService.method.resolveAccess, { workspaceId }) : undefined;
    const workspace = access?.found ? { id: workspaceId, visibility: access.visibility as Visibility, archived: access.archived } : undefined;
    const decision = decide({ auth, account, workspace, relation: (access?.found ? access.relation : 'none') as never, action, resourceOwnerId: options.resourceOwnerId });
    if (!decision.allowed) throw decision.status === 404 && options.hiddenAs ? options.hiddenAs() : denialError(decision);
    // A Leaf-backed workspace: its data lives in the zone's Leaf, never here (docs/hosted-zones.md).
    if (access!.hostedZoneId) throw hostedZoneRequired(access!.hostedZoneId, access!.endpointUrl);
    return { workspaceId, userId: auth!.userId, relation: access!.relation };
  }
}
