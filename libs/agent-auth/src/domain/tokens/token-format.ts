import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase62, randomBase62 } from './base62.js';

/**
 * Personal access tokens look like GitHub's: `kwp_` + 30 random base62 characters + a
 * 6-character base62 CRC32 of the random part. The prefix lets secret scanners find leaked
 * tokens; the checksum lets the gateway refuse a mistyped or forged token without any I/O.
 */
export const TOKEN_PREFIX = 'kwp_';
export const TOKEN_RANDOM_LENGTH = 30;
export const TOKEN_CHECKSUM_LENGTH = 6;
/** Characters of the random part shown in listings (`kwp_AbCd1234`). */
export const DISPLAY_PREFIX_LENGTH = 8;
/** Bearer strings outside the kwp_ format (the operator's ADMIN_TOKEN) must be at least this long. */
export const OPAQUE_TOKEN_MIN_LENGTH = 32;
export const OPAQUE_TOKEN_MAX_LENGTH = 256;

/** Agent authentication's secrets, in the same format: access token, refresh token, claim token. */
export const AGENT_ACCESS_PREFIX = 'kwa_';
export const AGENT_REFRESH_PREFIX = 'kwr_';
export const CLAIM_TOKEN_PREFIX = 'kwc_';
/** OAuth: application client secrets and authorization codes. */
export const CLIENT_SECRET_PREFIX = 'kws_';
export const AUTHORIZATION_CODE_PREFIX = 'kwo_';
const PREFIXES = [
  TOKEN_PREFIX,
  AGENT_ACCESS_PREFIX,
  AGENT_REFRESH_PREFIX,
  CLAIM_TOKEN_PREFIX,
  CLIENT_SECRET_PREFIX,
  AUTHORIZATION_CODE_PREFIX,
] as const;
export type SecretPrefix = (typeof PREFIXES)[number];

const SECRET_PATTERN = new RegExp(
  `^(kw[parcso]_)([0-9A-Za-z]{${TOKEN_RANDOM_LENGTH}})([0-9A-Za-z]{${TOKEN_CHECKSUM_LENGTH}})$`,
);
const OPAQUE_PATTERN = /^[\x21-\x7e]+$/;

function checksumOf(random: string): string {
  return encodeBase62(crc32(random), TOKEN_CHECKSUM_LENGTH);
}

/** A new token: the secret (shown once) and what is stored of it. */
export function generateToken(prefix: SecretPrefix = TOKEN_PREFIX): {
  token: string;
  tokenHash: string;
  displayPrefix: string;
} {
  const random = randomBase62(TOKEN_RANDOM_LENGTH);
  const token = `${prefix}${random}${checksumOf(random)}`;
  return { token, tokenHash: hashToken(token), displayPrefix: displayPrefixOf(token) };
}

/** The prefix of a well-formed secret of ours (checksum verified), or null. */
export function secretPrefixOf(token: string): SecretPrefix | null {
  const match = SECRET_PATTERN.exec(token);
  return match && checksumOf(match[2]) === match[3] ? (match[1] as SecretPrefix) : null;
}

/** What is stored instead of the secret: SHA-256, hex, of the whole token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** `kwp_` + the first random characters; for an opaque token its first characters. */
export function displayPrefixOf(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + DISPLAY_PREFIX_LENGTH);
}

export type BearerShape =
  /** A well-formed kwp_ token with a valid checksum: look it up. */
  | 'kwp'
  /** A well-formed agent access token (kwa_): look it up among agent tokens. */
  | 'agent'
  /** Not kwp_, but long enough to be an operator-provided secret (ADMIN_TOKEN): look it up by hash. */
  | 'opaque'
  /** Anything else, including kwp_ with a bad checksum: refuse without a lookup. */
  | 'malformed';

/** Classifies a bearer string with no I/O: decides whether it is worth a database lookup. */
export function classifyBearer(token: string): BearerShape {
  const prefix = PREFIXES.find((p) => token.startsWith(p));
  if (prefix) {
    // Refresh and claim tokens are never bearer credentials.
    const shape = secretPrefixOf(token);
    return shape === TOKEN_PREFIX ? 'kwp' : shape === AGENT_ACCESS_PREFIX ? 'agent' : 'malformed';
  }
  if (token.length >= OPAQUE_TOKEN_MIN_LENGTH && token.length <= OPAQUE_TOKEN_MAX_LENGTH && OPAQUE_PATTERN.test(token))
    return 'opaque';
  return 'malformed';
}

/** True when a bearer string may be looked up (see classifyBearer). */
export function isAcceptableBearer(token: string): boolean {
  return classifyBearer(token) !== 'malformed';
}
