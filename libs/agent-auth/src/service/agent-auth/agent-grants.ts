import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { AgentGrantSchema } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { AgentGrantsRepository, type AgentGrantRow } from '../../persistence/agent-grants.repository.js';
import { CallerAccounts } from '../caller-accounts.js';
import { CredentialChanges } from '../credentials/credential-changes.js';

/** The caller's agent grants (`tokens:manage`, which no agent holds): see them, revoke them. */
@Injectable()
export class AgentGrants {
  constructor(
    private readonly callers: CallerAccounts,
    private readonly grants: AgentGrantsRepository,
    private readonly changes: CredentialChanges,
  ) {}

  async list(context: RequestContext): Promise<Array<MessageInitShape<typeof AgentGrantSchema>>> {
    const { user } = await this.callers.require(context, 'tokens:manage');
    return (await this.grants.listLive(user.id)).map(toGrantMessage);
  }

  /** Every token of the grant stops working at once; another user's grant is 404. */
  async revoke(id: string, context: RequestContext, now = new Date()): Promise<void> {
    const { user } = await this.callers.require(context, 'tokens:manage');
    if (!isUuid(id) || !(await this.grants.revokeGrant(id, 'revoked by the user', now, user.id)))
      throw notFound('Agent grant');
    await this.changes.tokensChanged(id);
  }
}

export function toGrantMessage(grant: AgentGrantRow): MessageInitShape<typeof AgentGrantSchema> {
  return {
    id: grant.id,
    agentName: grant.agentName,
    method: grant.method,
    issuer: grant.issuer ?? undefined,
    scopes: grant.scopes,
    allWorkspaces: grant.allWorkspaces,
    workspaceIds: grant.allWorkspaces ? [] : grant.workspaceIds,
    createdAt: grant.createdAt.toISOString(),
    lastUsedAt: grant.lastUsedAt?.toISOString(),
  };
}
