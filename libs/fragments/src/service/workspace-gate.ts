import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { decide, denialError, type Action, type Visibility } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import type { AppError } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import { hostedZoneRequired } from './fragment-errors.js';
import { isUuid } from './ids.js';

export interface Gate {
  /** The workspace that may be acted on (never the client's word: ResolveAccess found it). */
  workspaceId: string;
  userId: string;
  /** The caller's relation (a member role, subscriber or none). */
  relation: string;
}

/**
 * The owner id of content no member created (fragment types, the defaults included): passed
 * as resourceOwnerId, it lets only the roles that change anyone's content change it.
 */
export const NO_MEMBER = 'workspace';

export interface GateOptions {
  /** The creator of the content acted on (updates and deletes); left out when creating. */
  resourceOwnerId?: string;
  /** Answer this instead of the workspace 404 (a fragment id must not reveal its workspace). */
  hiddenAs?: () => AppError;
}

/**
 * The fragments component does not own membership: it asks the workspaces component how the
 * caller stands towards the workspace (WorkspacesService.ResolveAccess) and lets the access
 * policy decide. Nothing is cached across requests. Never call inside a database transaction:
 * in embedded mode the workspaces component needs the same single connection.
 */
@Injectable()
export class WorkspaceGate {
  constructor(private readonly client: ServiceClient) {}

  async authorize(context: RequestContext, workspaceId: string, action: Action, options: GateOptions = {}): Promise<Gate> {
    const auth = context.auth;
    const account = auth?.userId ? { active: true } : undefined;
    const access = auth?.userId && isUuid(workspaceId) ? await this.client.call(WorkspacesService.method.resolveAccess, { workspaceId }) : undefined;
    const workspace = access?.found ? { id: workspaceId, visibility: access.visibility as Visibility, archived: access.archived } : undefined;
    const decision = decide({ auth, account, workspace, relation: (access?.found ? access.relation : 'none') as never, action, resourceOwnerId: options.resourceOwnerId });
    if (!decision.allowed) throw decision.status === 404 && options.hiddenAs ? options.hiddenAs() : denialError(decision);
    // Seam for hosted zones (a later issue): their data lives in the zone's Leaf, not here.
    if (access!.hostedZoneId) throw hostedZoneRequired(access!.hostedZoneId);
    return { workspaceId, userId: auth!.userId, relation: access!.relation };
  }
}
