import { Injectable } from '@nestjs/common';
import { VaultService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';

/**
 * How long "this user has no key for this provider" is remembered. A bring-your-own-key lookup
 * is a message and a database read; most calls have no such key, and the model call should not
 * pay for asking every time. A key added through this process is seen at once (forget()); one
 * added through another gateway replica within this time.
 */
const NO_KEY_TTL_MS = 5_000;
const NO_KEY_ENTRIES_MAX = 10_000;

export interface ResolvedKey {
  apiKey: string;
  credential: string;
}

/** The caller's own provider keys (vault secrets of type `api-key`), opened by the chat service. */
@Injectable()
export class ProviderKeys {
  private readonly noKey = new Map<string, number>();

  constructor(private readonly client: ServiceClient) {}

  /** For the model gateway: the caller's key for a provider, or undefined for the operator's. */
  resolverFor(userId: string, detail: string): (provider: string) => Promise<ResolvedKey | undefined> {
    return async (provider) => {
      const cacheKey = `${userId}\u0000${provider}`;
      const until = this.noKey.get(cacheKey);
      if (until !== undefined && until > performance.now()) return undefined;
      const found = await this.client.call(VaultService.method.resolveProviderKey, {
        provider,
        detail: `${provider} ${detail}`,
      });
      if (!found.found) {
        if (this.noKey.size >= NO_KEY_ENTRIES_MAX) this.noKey.clear();
        this.noKey.set(cacheKey, performance.now() + NO_KEY_TTL_MS);
        return undefined;
      }
      this.noKey.delete(cacheKey);
      return { apiKey: found.value, credential: `vault:${found.secretId}` };
    };
  }

  /** After the user changed their secrets through this process. */
  forget(userId: string): void {
    for (const key of this.noKey.keys()) if (key.startsWith(`${userId}\u0000`)) this.noKey.delete(key);
  }
}
