import type { SecretBox } from '@kw/platform-secret-box';
import type { WebhooksRepository } from '../persistence/webhooks.repository.js';

/** The secrets that sign a delivery now: the current one and any still in their overlap. */
export async function signingSecrets(
  webhooks: Pick<WebhooksRepository, 'signingSecretsSealed'>,
  box: SecretBox,
  webhookId: string,
  now = new Date(),
): Promise<string[]> {
  const sealed = await webhooks.signingSecretsSealed(webhookId, now);
  return sealed.map((secret) => box.open(secret));
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
  return sealed ? (JSON.parse(box.open(sealed)) as HeaderPair[]) : [];
}
