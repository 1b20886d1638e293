import type { SecretBox } from '@kw/platform-secret-box';
import type { WebhooksDb } from './webhooks-db.js';

/** The secrets that sign a delivery now: the current one and any still in their overlap. */
export async function signingSecrets(
  db: Pick<WebhooksDb, 'webhookSecret'>,
  box: SecretBox,
  webhookId: string,
  now = new Date(),
): Promise<string[]> {
  const rows = await db.webhookSecret.findMany({
    where: { webhookId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
  });
  return rows.map((row) => box.open(row.secretSealed));
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
