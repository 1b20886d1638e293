import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { AuthenticateTokenResponseSchema } from '@kw/contracts';
import { classifyBearer, hashToken } from '../../domain/tokens/token-format.js';
import { toUserMessage } from '../mappers.js';
import { TokensRepository, type TokenCredentialStore } from '../../persistence/tokens.repository.js';
import { invalidCredential } from './credential-errors.js';
import { AuthenticateAgentToken } from './authenticate-agent-token.js';
import { TOKEN_USAGE_STORE, TokenUsageRecorder } from '@kw/platform-token-cache';

export const TOKEN_CREDENTIAL_STORE = Symbol('agent-auth.TokenCredentialStore');

/**
 * AuthenticateToken: a personal access token (or an agent's access token, see
 * AuthenticateAgentToken) to the caller. The shape and checksum are
 * checked first, with no I/O, so garbage never reaches the database; then the hash is looked
 * up, and the token must be unrevoked, unexpired and its account active. Each accepted use is
 * recorded (last use, requests per UTC day) by the batching TokenUsageRecorder, off the request's path.
 * The token's expiry goes with the answer, so a gateway that caches it never outlives it.
 */
@Injectable()
export class AuthenticateToken {
  constructor(
    @Inject(TOKEN_CREDENTIAL_STORE) private readonly store: TokenCredentialStore,
    private readonly usage: TokenUsageRecorder,
    private readonly agentTokens: AuthenticateAgentToken,
  ) {}

  async execute(
    token: string,
    ip: string,
    now = new Date(),
  ): Promise<MessageInitShape<typeof AuthenticateTokenResponseSchema>> {
    const shape = classifyBearer(token);
    if (shape === 'malformed') throw invalidCredential();
    if (shape === 'agent') return this.agentTokens.authenticate(token, now);
    const found = await this.store.findByHash(hashToken(token));
    if (!found || found.revokedAt || (found.expiresAt && found.expiresAt <= now) || found.user.status !== 'active')
      throw invalidCredential();
    this.usage.record(found.id, ip, now);
    return {
      caller: {
        auth: {
          userId: found.userId,
          credentialId: found.id,
          credentialKind: 'pat',
          scopes: found.scopes,
          allWorkspaces: found.allWorkspaces,
          workspaceIds: found.allWorkspaces ? [] : found.workspaceIds,
        },
        user: toUserMessage(found.user),
      },
      expiresAt: found.expiresAt?.toISOString(),
    };
  }
}

/** Nest wiring: the store is the Prisma repository outside tests. */
export const tokenCredentialStoreProvider = { provide: TOKEN_CREDENTIAL_STORE, useExisting: TokensRepository };
export const tokenUsageStoreProvider = { provide: TOKEN_USAGE_STORE, useExisting: TokensRepository };
