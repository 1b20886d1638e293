import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { DescribeCredentialResponseSchema } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { CallerAccounts } from '../caller-accounts.js';
import { toUserMessage } from '../mappers.js';
import { AgentGrantsRepository } from '../../persistence/agent-grants.repository.js';
import { SessionsRepository } from '../../persistence/sessions.repository.js';
import { TokensRepository } from '../../persistence/tokens.repository.js';

const gone = (): AppError =>
  new AppError({
    status: 401,
    code: ErrorCode.UNAUTHENTICATED,
    message: 'The credential is invalid, expired or revoked',
  });

/**
 * DescribeCredential: what the caller's credential is and reaches, read now (spec:
 * validate-token "confirms the credential's current acceptance and reported access").
 * Any authenticated credential may ask about itself, whatever its scopes.
 */
@Injectable()
export class DescribeCredential {
  constructor(
    private readonly callers: CallerAccounts,
    private readonly tokens: TokensRepository,
    private readonly sessions: SessionsRepository,
    private readonly grants: AgentGrantsRepository,
  ) {}

  async execute(
    context: RequestContext,
    now = new Date(),
  ): Promise<MessageInitShape<typeof DescribeCredentialResponseSchema>> {
    const { auth, user } = await this.callers.requireActive(context);
    if (auth.credentialKind === 'session') {
      const session = await this.sessions.findOwned(auth.credentialId, user.id);
      if (!session || session.expiresAt <= now) throw gone();
      return {
        kind: 'session',
        id: session.id,
        expiresAt: session.expiresAt.toISOString(),
        scopes: ['*'],
        allWorkspaces: true,
        workspaceIds: [],
        user: toUserMessage(user),
      };
    }
    if (auth.credentialKind === 'agent') {
      const grant = await this.grants.findLive(auth.credentialId, user.id);
      if (!grant) throw gone();
      return {
        kind: 'agent',
        id: grant.id,
        name: grant.agentName,
        // What this access token acts with: the grant's, or fewer when a refresh narrowed it.
        scopes: grant.scopes.filter((s) => auth.scopes.includes(s)),
        allWorkspaces: grant.allWorkspaces,
        workspaceIds: grant.allWorkspaces ? [] : grant.workspaceIds,
        user: toUserMessage(user),
      };
    }
    const token = await this.tokens.findOwned(auth.credentialId, user.id);
    if (!token || (token.expiresAt && token.expiresAt <= now)) throw gone();
    return {
      kind: 'pat',
      id: token.id,
      name: token.name,
      expiresAt: token.expiresAt?.toISOString(),
      scopes: token.scopes,
      allWorkspaces: token.allWorkspaces,
      workspaceIds: token.allWorkspaces ? [] : token.workspaceIds,
      user: toUserMessage(user),
    };
  }
}
