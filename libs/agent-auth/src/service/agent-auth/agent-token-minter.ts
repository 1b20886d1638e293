import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { IssueTokenResponseSchema } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';
import { AGENT_ACCESS_PREFIX, AGENT_REFRESH_PREFIX, generateToken } from '../../domain/tokens/token-format.js';
import type { NewTokenPair } from '../../persistence/agent-grants.repository.js';

/** A freshly minted pair: what is stored, and the secrets answered once. */
export interface MintedTokens {
  stored: NewTokenPair;
  answer: (scopes: string[]) => MessageInitShape<typeof IssueTokenResponseSchema>;
}

/** Access (`kwa_`, short-lived) and refresh (`kwr_`) tokens of agent grants; only their hashes are kept. */
@Injectable()
export class AgentTokenMinter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  mint(now: Date): MintedTokens {
    const access = generateToken(AGENT_ACCESS_PREFIX);
    const refresh = generateToken(AGENT_REFRESH_PREFIX);
    const ttl = this.config.AGENT_ACCESS_TOKEN_TTL_SECONDS;
    return {
      stored: {
        accessHash: access.tokenHash,
        accessExpiresAt: new Date(now.getTime() + ttl * 1000),
        refreshHash: refresh.tokenHash,
        refreshExpiresAt: new Date(now.getTime() + this.config.AGENT_REFRESH_TOKEN_TTL_DAYS * 86_400_000),
      },
      answer: (scopes) => ({
        accessToken: access.token,
        tokenType: 'Bearer',
        expiresIn: ttl,
        refreshToken: refresh.token,
        scope: scopes.join(' '),
      }),
    };
  }
}
