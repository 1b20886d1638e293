import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { AuthenticateTokenResponseSchema } from '@kw/contracts';
import { hashToken } from '../../domain/tokens/token-format.js';
import { AgentGrantsRepository } from '../../persistence/agent-grants.repository.js';
import { OAuthApplicationsRepository } from '../../persistence/oauth-applications.repository.js';
import { toUserMessage } from '../mappers.js';
import { invalidCredential } from './credential-errors.js';

/** A grant's last use is written at most this often (it is shown to the user, not counted). */
const TOUCH_EVERY_MS = 60_000;

/**
 * An agent's access token (`kwa_`) to the caller: the token must be unrevoked and unexpired,
 * its grant live, its account active and, for an application's grant, the application active
 * (a disabled one keeps its grants, unusable until it is enabled again). The caller acts with
 * the grant's scopes and workspaces, as credential kind `agent` whose id is the grant's
 * (revoking the grant, or disabling its application, drops every gateway's cached entry for
 * its tokens).
 */
@Injectable()
export class AuthenticateAgentToken {
  constructor(
    private readonly grants: AgentGrantsRepository,
    private readonly applications: OAuthApplicationsRepository,
  ) {}

  async authenticate(token: string, now: Date): Promise<MessageInitShape<typeof AuthenticateTokenResponseSchema>> {
    const found = await this.grants.findAccessByHash(hashToken(token));
    if (
      !found ||
      found.kind !== 'access' ||
      found.revokedAt ||
      found.expiresAt <= now ||
      found.grant.revokedAt ||
      found.grant.user.status !== 'active'
    )
      throw invalidCredential();
    const { grant } = found;
    if (grant.applicationId && (await this.applications.findById(grant.applicationId))?.status !== 'active')
      throw invalidCredential();
    if (!grant.lastUsedAt || now.getTime() - grant.lastUsedAt.getTime() > TOUCH_EVERY_MS)
      void this.grants.touch(grant.id, now).catch(() => undefined);
    return {
      caller: {
        auth: {
          userId: grant.userId,
          credentialId: grant.id,
          credentialKind: 'agent',
          // An access token narrowed at refresh (RFC 6749 §6) acts with its own scopes, never beyond the grant's.
          scopes: found.scopes.length > 0 ? found.scopes.filter((s) => grant.scopes.includes(s)) : grant.scopes,
          allWorkspaces: grant.allWorkspaces,
          workspaceIds: grant.allWorkspaces ? [] : grant.workspaceIds,
          audience: grant.audience ?? '',
        },
        user: toUserMessage(grant.user),
      },
      expiresAt: found.expiresAt.toISOString(),
    };
  }
}
