import { createHash, randomBytes } from 'node:crypto';

/** A fresh unguessable value for a cookie (256 bits, base64url). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 hex; what is stored of session and CSRF secrets. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
