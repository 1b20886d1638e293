import { Inject, Injectable } from '@nestjs/common';
import type { RecordTokenUsesRequest } from '@kw/contracts';
import { fromTokenUsesMessage, TOKEN_USAGE_STORE } from '@kw/platform-token-cache';
import type { TokenCredentialStore } from '../../persistence/tokens.repository.js';
import { isUuid } from '@kw/platform-ids';

/**
 * RecordTokenUses: uses a gateway answered from its authentication cache, written at once
 * (not through this replica's recorder): the gateway flushes before reading analytics, which
 * may be served by another agent-auth replica. A gateway sends at most one call a second.
 */
@Injectable()
export class RecordTokenUses {
  constructor(@Inject(TOKEN_USAGE_STORE) private readonly store: Pick<TokenCredentialStore, 'recordUses'>) {}

  async execute(input: RecordTokenUsesRequest): Promise<void> {
    for (const message of input.uses) {
      const use = fromTokenUsesMessage(message);
      if (use && isUuid(message.tokenId)) await this.store.recordUses(message.tokenId, use);
    }
  }
}
