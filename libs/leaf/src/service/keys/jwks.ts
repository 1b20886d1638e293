import type { JWK } from 'jose';

/** A JSON Web Key Set as the Cloud publishes it (GET /.well-known/jwks.json). */
export interface Jwks {
  keys: JWK[];
}

/** A JWKS document, or undefined when the value is not one. */
export function asJwks(value: unknown): Jwks | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || !keys.every((k) => k && typeof k === 'object' && typeof (k as JWK).kty === 'string'))
    return undefined;
  return { keys: keys as JWK[] };
}
