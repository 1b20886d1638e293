import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { create } from '@bufbuild/protobuf';
import { AuthContextSchema, IdentityService, type AuthContext } from '@kw/contracts';
import { isWorkspaceRole, relationHas, type Relation } from '@kw/platform-access-policy';
import { requestContext } from '@kw/platform-context';
import { ServiceClient } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import type { EmbedConfigRow } from '../persistence/embed-configs.repository.js';

type ConfigRef = Pick<EmbedConfigRow, 'id' | 'createdBy' | 'workspaceId'>;

/** How an embed configuration's creator stands towards its workspace now. */
export interface CreatorStanding {
  /** An active account that can read the workspace: the configuration may act at all. */
  reads: boolean;
  /**
   * They may also manage the workspace (the `updateSettings` capability: its owners). Needed by
   * what lets others in on the creator's word: a trusted issuer (the JWT names any member) and a
   * public key (any page may use it).
   */
  manages: boolean;
}

/**
 * Whether an embed configuration may still act, asked at every turn and before every tool call
 * (docs/chat.md#embed-chat): a configuration lends its creator's access, so it stops when the
 * creator's account is disabled or they can no longer read the workspace (removed, the workspace
 * made private), exactly as their own token would. Roles come from the workspace gate (cached,
 * dropped at once by WorkspaceAccessChanged); account states from agent-auth, at each call.
 */
@Injectable()
export class EmbedStanding {
  constructor(
    private readonly gate: WorkspaceGate,
    private readonly client: ServiceClient,
  ) {}

  ofCreator(config: ConfigRef): Promise<CreatorStanding> {
    return this.ofMember(config.createdBy, config.workspaceId, config.id);
  }

  /**
   * How a user stands towards a workspace by their role alone (asked as them, with the scope
   * `workspaces:read`, restricted to it): a creator now, or whoever manages configurations.
   */
  ofMember(userId: string, workspaceId: string, credentialId: string): Promise<CreatorStanding> {
    const auth = create(AuthContextSchema, {
      userId,
      credentialId,
      credentialKind: 'embed',
      scopes: ['workspaces:read'],
      workspaceIds: [workspaceId],
      allWorkspaces: false,
    });
    return this.asUser(auth, async () => {
      const [active, relation] = await Promise.all([
        this.isActive(userId),
        this.gate.relationAllowing(requestContext.current()!, workspaceId, 'workspaces:read'),
      ]);
      const reads = active && relation !== undefined;
      return { reads, manages: reads && relationHas(relation as Relation, 'updateSettings') };
    });
  }

  /**
   * Whether the user a host page's JWT names (`caller`, restricted to the configuration's
   * workspace) is an active account and a member of the workspace now, in any role. Reading is
   * not enough: on a public workspace anyone reads, and the owner who chose the issuer would then
   * spend any account's budget. Members accepted an invitation; the owner may vouch for them only.
   */
  userIsMember(caller: AuthContext, workspaceId: string): Promise<boolean> {
    return this.asUser(caller, async () => {
      const [active, relation] = await Promise.all([
        this.isActive(caller.userId),
        this.gate.relationAllowing(requestContext.current()!, workspaceId, 'workspaces:read'),
      ]);
      return active && isWorkspaceRole(relation);
    });
  }

  private asUser<T>(auth: AuthContext, work: () => Promise<T>): Promise<T> {
    return requestContext.run({ requestId: requestContext.requestId() ?? randomUUID(), auth }, work);
  }

  /** Asked as whoever the current context is: agent-auth answers signed-in callers only. */
  private async isActive(userId: string): Promise<boolean> {
    const { users } = await this.client.call(IdentityService.method.getUsers, { ids: [userId] });
    return users.some((u) => u.id === userId && u.status === 'active');
  }
}
