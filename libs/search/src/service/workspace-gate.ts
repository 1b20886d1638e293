import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { decide, denialError, type Action, type Visibility } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { ServiceClient } from '@kw/platform-transport';

/** A workspace the caller may search (never the client's word: ResolveAccess found it). */
export interface SearchGate {
  workspaceId: string;
  userId: string;
  /** The caller's relation (a member role, subscriber or none). */
  relation: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Search does not own membership: like the fragments component it asks the workspaces
 * component how the caller stands (WorkspacesService.ResolveAccess) and lets the access policy
 * decide (`search:read` by default). Non-members get the same 404 as a missing
 * workspace. Nothing is cached across requests.
 */
@Injectable()
export class SearchWorkspaceGate {
  constructor(private readonly client: ServiceClient) {}

  async authorize(context: RequestContext, workspaceId: string, action: Action = 'search:read'): Promise<SearchGate> {
    const auth = context.auth;
    const account = auth?.userId ? { active: true } : undefined;
    const access = auth?.userId && UUID.test(workspaceId) ? await this.client.call(WorkspacesService.method.resolveAccess, { workspaceId }) : undefined;
    const workspace = access?.found ? { id: workspaceId, visibility: access.visibility as Visibility, archived: access.archived } : undefined;
    const decision = decide({ auth, account, workspace, relation: (access?.found ? access.relation : 'none') as never, action });
    if (!decision.allowed) throw denialError(decision);
    return { workspaceId, userId: auth!.userId, relation: access!.relation };
  }
}
