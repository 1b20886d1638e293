import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43 to 128 characters of the unreserved set. Challenges have the same shape (S256: 43). */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export const isPkceValue = (value: string): boolean => VERIFIER.test(value);

/** Whether the verifier's S256 transform is the challenge (compared in constant time). */
export function verifiesS256(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
