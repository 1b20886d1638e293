import { Inject, Injectable } from '@nestjs/common';
import type { EnvelopeSealer } from '@kw/platform-secret-box';
import { VaultRepository } from '../persistence/vault.repository.js';
import { VAULT_SEALER } from './vault.handlers.js';

const PAGE = 200;

export interface RewrapProgress {
  rewrapped: number;
  skipped: number;
}

/**
 * Master key rotation: every secret's data key is wrapped again under the current master key
 * (SECRETS_ENCRYPTION_KEY), values untouched. Needs the previous key configured as
 * SECRETS_ENCRYPTION_KEY_PREVIOUS while it runs; safe to run again or beside a running service
 * (a row changed meanwhile is skipped and picked up by the next run).
 */
@Injectable()
export class VaultRewrap {
  constructor(
    private readonly vault: VaultRepository,
    @Inject(VAULT_SEALER) private readonly sealer: EnvelopeSealer,
  ) {}

  async run(onProgress: (progress: RewrapProgress) => void = () => undefined): Promise<RewrapProgress> {
    const progress: RewrapProgress = { rewrapped: 0, skipped: 0 };
    const seen = new Set<string>();
    for (;;) {
      const rows = (await this.vault.findNeedingRewrap(this.sealer.currentVersion, PAGE + seen.size)).filter(
        (r) => !seen.has(r.id),
      );
      if (rows.length === 0) return progress;
      for (const row of rows) {
        seen.add(row.id);
        // Throws for a key version none of the configured keys has: the operator must add it.
        const rewrapped = this.sealer.rewrap(row);
        if (await this.vault.replaceWrappedKey(row.id, row, rewrapped)) progress.rewrapped++;
        else progress.skipped++;
      }
      onProgress({ ...progress });
    }
  }
}
