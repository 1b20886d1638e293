import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Authenticated encryption (AES-256-GCM) for secrets the platform must use again later:
 * webhook signing secrets and authentication headers, vault values. A sealed value names
 * the key it was sealed with (`v1.<keyId>.<iv>.<ciphertext+tag>`, base64url), so a key can be
 * replaced while values sealed with the previous one still open.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentId: string;

  /** `keys[0]` seals; every key opens what it sealed. Each key is 32 bytes. */
  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('SecretBox needs a key');
    for (const key of keys) {
      if (key.length !== 32) throw new Error('SecretBox keys are 32 bytes');
      this.keys.set(keyIdOf(key), key);
    }
    this.currentId = keyIdOf(keys[0]!);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, iv);
    cipher.setAAD(Buffer.from(`${VERSION}.${this.currentId}`));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.currentId, iv.toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Throws when the value was not sealed by one of this box's keys or was altered. */
  open(sealed: string): string {
    const [version, keyId, ivText, bodyText] = sealed.split('.');
    const key = keyId ? this.keys.get(keyId) : undefined;
    if (version !== VERSION || !key || !ivText || !bodyText)
      throw new Error('sealed value in an unknown format or key');
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
    decipher.setAAD(Buffer.from(`${version}.${keyId}`));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }
}

/**
 * A key's public name: not secret, and stable for the key (the first 8 hex characters of its
 * SHA-256). SecretBox values and EnvelopeSealer key versions both name keys by it.
 */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** A key from its configured text: 64 hex characters or base64 of 32 bytes. */
export function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('a secrets encryption key is 32 bytes: 64 hex characters or base64');
  return key;
}
