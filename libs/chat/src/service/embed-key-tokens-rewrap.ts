import { Inject, Injectable } from '@nestjs/common';
import { SECRET_BOX, resealColumn, type ResealTally, type SecretBox } from '@kw/platform-secret-box';
import { EmbedConfigsRepository } from '../persistence/embed-configs.repository.js';

/**
 * Master key rotation of the embed keys' scoped tokens (sealed with the SecretBox, not the vault's
 * envelopes): sealed again under the current master key while SECRETS_ENCRYPTION_KEY_PREVIOUS
 * still opens them (`resealColumn`). Run by `npm run vault:rewrap` beside VaultRewrap.
 */
@Injectable()
export class EmbedKeyTokensRewrap {
  constructor(
    private readonly configs: EmbedConfigsRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async run(
    onProgress: (what: string, tally: ResealTally) => void = () => undefined,
  ): Promise<Record<string, ResealTally>> {
    return {
      embedKeyTokens: await resealColumn(this.box, this.configs.sealedScopedTokens, (t) =>
        onProgress('embed key scoped tokens', t),
      ),
    };
  }
}
