import { createHash, randomBytes } from 'node:crypto';

/** How long an enrollment token stays usable. */
export const ENROLLMENT_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

export const ENROLLMENT_TOKEN_PREFIX = 'kwe_';
export const ZONE_CREDENTIAL_PREFIX = 'kwz_';

const secret = (prefix: string): string => `${prefix}${randomBytes(32).toString('base64url')}`;

/** A one-time token a Leaf enrolls with (`kwe_` + 256 random bits); only its hash is stored. */
export const newEnrollmentToken = (): string => secret(ENROLLMENT_TOKEN_PREFIX);

/** The Leaf's lasting credential (`kwz_` + 256 random bits); only its hash is stored. */
export const newZoneCredential = (): string => secret(ZONE_CREDENTIAL_PREFIX);

/** SHA-256 (hex) of a secret: what the table keeps. High-entropy secrets need no salt or slow hash. */
export const hashSecret = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Whether a value presented as a secret has the expected shape (cheap refusal before any lookup). */
export const looksLike = (value: string, prefix: string): boolean =>
  value.startsWith(prefix) && value.length > prefix.length + 20 && value.length < 200;
