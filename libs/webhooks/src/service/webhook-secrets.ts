import type { SecretBox } from '@kw/platform-secret-box';
import type { WebhooksRepository } from '../persistence/webhooks.repository.js';

/**
 * The secrets that sign a delivery now: the current one and any still in their overlap. The
 * current one must open (UnsealableSecretError); a previous one that no longer does (the master
 * key changed, then `rotate-secret` repaired the endpoint) stops signing.
 */
export async function signingSecrets(
  webhooks: Pick<WebhooksRepository, 'signingSecretsSealed'>,
  box: SecretBox,
  webhookId: string,
  now = new Date(),
): Promise<string[]> {
  const [current, ...previous] = await webhooks.signingSecretsSealed(webhookId, now);
  if (current === undefined) return [];
  const opened = [openSealed(box, current)];
  for (const secret of previous) {
    try {
      opened.push(box.open(secret));
    } catch {
      // Left out: the current secret signs.
    }
  }
  return opened;
}

/** A sealed value that does not open with the configured master keys (sealed under another key, or altered). */
export class UnsealableSecretError extends Error {
  constructor(cause: unknown) {
    super('a sealed webhook value does not open with the configured master keys', { cause });
  }
}

function openSealed(box: SecretBox, sealed: string): string {
  try {
    return box.open(sealed);
  } catch (err) {
    throw new UnsealableSecretError(err);
  }
}

export interface HeaderPair {
  name: string;
  value: string;
}

/** Auth headers are stored sealed, as one JSON array; their names stay readable for answers. */
export function sealHeaders(
  box: SecretBox,
  headers: readonly HeaderPair[],
): { headersSealed: string | null; headerNames: string[] } {
  if (headers.length === 0) return { headersSealed: null, headerNames: [] };
  return { headersSealed: box.seal(JSON.stringify(headers)), headerNames: headers.map((h) => h.name) };
}

export function openHeaders(box: SecretBox, sealed: string | null): HeaderPair[] {
  return sealed ? (JSON.parse(openSealed(box, sealed)) as HeaderPair[]) : [];
}
