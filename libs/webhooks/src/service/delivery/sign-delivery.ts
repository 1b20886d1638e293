import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SECRET_PREFIX = 'whsec_';

/** A new endpoint signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-id` of a delivery: the same on every attempt, so receivers deduplicate. */
export function messageIdOf(deliveryId: string): string {
  return `msg_${deliveryId.replace(/-/g, '')}`;
}

/**
 * The Standard Webhooks headers of one attempt. Every secret still signing contributes a
 * signature (space-separated), so a receiver holding either the old or the new secret
 * verifies during a rotation's overlap.
 */
export function signedHeaders(
  messageId: string,
  body: string,
  secrets: readonly string[],
  at: Date = new Date(),
): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
