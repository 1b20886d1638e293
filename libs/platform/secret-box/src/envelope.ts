import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyIdOf } from './secret-box.js';

const FORMAT = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Domain separation: a SecretBox value (AAD `v1.<keyId>`) never opens as an envelope part, nor the reverse. */
const DATA_AAD = `kw-envelope.${FORMAT}.data:`;
const WRAP_AAD = `kw-envelope.${FORMAT}.key:`;

/**
 * A value sealed under its own data key. Every part is text (`v1.<iv>.<ciphertext+tag>`,
 * base64url), safe to store in database columns. Nothing in it is secret but the master key's
 * protection: `keyVersion` is the master key's public id (`keyIdOf`).
 */
export interface SealedEnvelope {
  /** The value, AES-256-GCM under the data key, bound to the associated data it was sealed with. */
  ciphertext: string;
  /** The data key, AES-256-GCM under the master key `keyVersion`, bound to that version. */
  wrappedKey: string;
  keyVersion: string;
}

/**
 * Envelope encryption for stored secrets (the vault): each value gets a fresh random data key,
 * and only the data key is encrypted with the master key. A master key change therefore
 * re-wraps 32-byte data keys (`rewrap`) without touching the values, and `keyVersion` tells
 * which rows still need it.
 *
 * The associated data (e.g. the row id) is authenticated with the value: a ciphertext copied to
 * another row, or a wrapped key swapped between rows, does not open.
 */
export class EnvelopeSealer {
  private readonly keys = new Map<string, Buffer>();
  private readonly current: string;

  /** `masterKeys[0]` wraps new data keys; every key unwraps. Each key is 32 bytes. */
  constructor(masterKeys: Buffer[]) {
    if (masterKeys.length === 0) throw new Error('EnvelopeSealer needs a master key');
    for (const key of masterKeys) {
      if (key.length !== KEY_BYTES) throw new Error('EnvelopeSealer master keys are 32 bytes');
      const id = keyIdOf(key);
      const known = this.keys.get(id);
      if (known && !known.equals(key)) throw new Error(`two master keys share the key version ${id}`);
      this.keys.set(id, Buffer.from(key));
    }
    this.current = keyIdOf(masterKeys[0]!);
  }

  /** The key version new envelopes (and re-wrapped ones) carry. */
  get currentVersion(): string {
    return this.current;
  }

  seal(plaintext: string, associatedData: string): SealedEnvelope {
    const dataKey = randomBytes(KEY_BYTES);
    try {
      return {
        ciphertext: encrypt(dataKey, Buffer.from(plaintext, 'utf8'), DATA_AAD + associatedData),
        wrappedKey: this.wrap(dataKey, this.current),
        keyVersion: this.current,
      };
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * The value of an envelope sealed with the same associated data. Throws when its key version
   * is not one of this sealer's master keys, or when any part was altered or belongs to another
   * row.
   */
  open(envelope: SealedEnvelope, associatedData: string): string {
    const dataKey = this.unwrap(envelope);
    try {
      return decrypt(dataKey, envelope.ciphertext, DATA_AAD + associatedData, 'ciphertext').toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * The same envelope with its data key wrapped under the current master key: the ciphertext is
   * unchanged (so is the associated data it needs). A copy when it is already current. Throws
   * on an unknown key version or an altered wrapped key.
   */
  rewrap(envelope: SealedEnvelope): SealedEnvelope {
    if (!this.needsRewrap(envelope)) return pick(envelope);
    const dataKey = this.unwrap(envelope);
    try {
      return {
        ciphertext: envelope.ciphertext,
        wrappedKey: this.wrap(dataKey, this.current),
        keyVersion: this.current,
      };
    } finally {
      dataKey.fill(0);
    }
  }

  /** True when the data key is wrapped under another master key than the current one. */
  needsRewrap(envelope: SealedEnvelope): boolean {
    return envelope.keyVersion !== this.current;
  }

  private wrap(dataKey: Buffer, version: string): string {
    return encrypt(this.keys.get(version)!, dataKey, WRAP_AAD + version);
  }

  private unwrap(envelope: SealedEnvelope): Buffer {
    const masterKey = this.keys.get(envelope.keyVersion);
    if (!masterKey) throw new Error(`sealed envelope under an unknown key version "${envelope.keyVersion}"`);
    const dataKey = decrypt(masterKey, envelope.wrappedKey, WRAP_AAD + envelope.keyVersion, 'wrapped key');
    if (dataKey.length !== KEY_BYTES) throw new Error('sealed envelope has a wrapped key of the wrong length');
    return dataKey;
  }
}

function pick({ ciphertext, wrappedKey, keyVersion }: SealedEnvelope): SealedEnvelope {
  return { ciphertext, wrappedKey, keyVersion };
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return [FORMAT, iv.toString('base64url'), body.toString('base64url')].join('.');
}

function decrypt(key: Buffer, sealed: string, aad: string, part: string): Buffer {
  const [format, ivText, bodyText, extra] = typeof sealed === 'string' ? sealed.split('.') : [];
  const iv = ivText ? Buffer.from(ivText, 'base64url') : undefined;
  const body = bodyText ? Buffer.from(bodyText, 'base64url') : undefined;
  if (format !== FORMAT || extra !== undefined || iv?.length !== IV_BYTES || !body || body.length < TAG_BYTES)
    throw new Error(`sealed envelope ${part} in an unknown format`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new Error(
      part === 'ciphertext'
        ? 'sealed envelope does not open: altered, or sealed for other associated data'
        : 'sealed envelope wrapped key does not open: altered, or wrapped under another key',
    );
  }
}
