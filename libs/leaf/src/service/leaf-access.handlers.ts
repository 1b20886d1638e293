import { Injectable } from '@nestjs/common';
import { WorkspacesService, type AuthContext } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { HANDOFF_CREDENTIAL, HANDOFF_ROLES } from './credentials/handoff-authenticator.js';
import { LeafStateRepository } from '../persistence/leaf-state.repository.js';

/**
 * The part of WorkspacesService a Leaf answers itself (it has no workspaces component): the
 * data-plane components' WorkspaceGate asks ResolveAccess, and the access policy then decides
 * with the token's actions (its scopes) and role. A workspace exists for the caller when it is
 * provisioned here and is the one the caller's handoff token names. Never hosted elsewhere
 * from the Leaf's point of view: hostedZoneId is empty, so the gate serves the request.
 */
@Injectable()
export class LeafAccessHandlers {
  constructor(private readonly state: LeafStateRepository) {}

  @Handles(WorkspacesService.method.resolveAccess)
  resolveAccess(input: RequestOf<typeof WorkspacesService, 'resolveAccess'>, context: RequestContext) {
    const role = this.roleIn(context.auth, input.workspaceId);
    if (!role) return { found: false, relation: 'none' };
    return {
      found: true,
      relation: role,
      visibility: visibilityFor(role),
      archived: false,
      hostedZoneId: '',
      // Moving out of the zone (the Cloud's heartbeat said so): the gate serves reads only.
      status: this.state.isFrozen(input.workspaceId) ? 'moving' : 'active',
      endpointUrl: '',
    };
  }

  /** The workspaces of the caller's token that this Leaf serves (cross-workspace search). */
  @Handles(WorkspacesService.method.listAccessibleWorkspaces)
  listAccessibleWorkspaces(
    _input: RequestOf<typeof WorkspacesService, 'listAccessibleWorkspaces'>,
    context: RequestContext,
  ) {
    const workspaces = this.state
      .workspaces()
      .filter((w) => this.roleIn(context.auth, w.id))
      .map((w) => ({
        id: w.id,
        name: w.name,
        visibility: visibilityFor(context.auth!.workspaceRole),
        status: this.state.isFrozen(w.id) ? 'moving' : 'active',
        relation: context.auth!.workspaceRole,
      }));
    return { workspaces };
  }

  private roleIn(auth: AuthContext | undefined, workspaceId: string): string | undefined {
    if (!auth?.userId || auth.credentialKind !== HANDOFF_CREDENTIAL || !HANDOFF_ROLES.includes(auth.workspaceRole))
      return undefined;
    if (!auth.workspaceIds.includes(workspaceId) || !this.state.isProvisioned(workspaceId)) return undefined;
    return auth.workspaceRole;
  }
}

/**
 * The Leaf keeps no visibility: a subscriber's token is the Cloud's word that the workspace was
 * public when it was signed (making it private revokes such tokens), and the access policy
 * grants a subscriber nothing on a private workspace.
 */
function visibilityFor(role: string): 'public' | 'private' {
  return role === 'subscriber' ? 'public' : 'private';
}
