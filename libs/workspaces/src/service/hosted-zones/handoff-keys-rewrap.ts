import { Inject, Injectable } from '@nestjs/common';
import { SECRET_BOX, resealColumn, type ResealTally, type SecretBox } from '@kw/platform-secret-box';
import { HandoffKeysRepository } from '../../persistence/handoff-keys.repository.js';

/**
 * Master key rotation of the workspaces component: the hosted zones' handoff signing keys
 * (private JWKs, sealed) are sealed again under the current master key while
 * SECRETS_ENCRYPTION_KEY_PREVIOUS still opens them (`resealColumn`). Run by `npm run vault:rewrap`.
 */
@Injectable()
export class HandoffKeysRewrap {
  constructor(
    private readonly keys: HandoffKeysRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async run(
    onProgress: (what: string, tally: ResealTally) => void = () => undefined,
  ): Promise<Record<string, ResealTally>> {
    return {
      handoffKeys: await resealColumn(this.box, this.keys.sealedPrivateKeys, (t) =>
        onProgress('handoff signing keys', t),
      ),
    };
  }
}
