import { Inject, Injectable } from '@nestjs/common';
import { SECRET_BOX, resealColumn, type ResealTally, type SecretBox } from '@kw/platform-secret-box';
import { WebhooksRepository } from '../persistence/webhooks.repository.js';

/**
 * Master key rotation of the webhooks component: every endpoint's sealed header values and
 * signing secrets are sealed again under the current master key (SECRETS_ENCRYPTION_KEY), while
 * SECRETS_ENCRYPTION_KEY_PREVIOUS still opens them. Safe to run again and beside a running
 * service (`resealColumn`). Run by `npm run vault:rewrap`.
 */
@Injectable()
export class WebhookValuesRewrap {
  constructor(
    private readonly webhooks: WebhooksRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async run(
    onProgress: (what: string, tally: ResealTally) => void = () => undefined,
  ): Promise<Record<string, ResealTally>> {
    return {
      webhookHeaders: await resealColumn(this.box, this.webhooks.sealedHeaders, (t) =>
        onProgress('webhook headers', t),
      ),
      webhookSecrets: await resealColumn(this.box, this.webhooks.sealedSecrets, (t) =>
        onProgress('webhook signing secrets', t),
      ),
    };
  }
}
