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

  /** What every value sealed by the current key starts with (`v1.<keyId>.`): others need `reseal`. */
  get currentPrefix(): string {
    return `${VERSION}.${this.currentId}.`;
  }

  /**
   * The value sealed again under the current key (itself when it already is): the master key
   * rotation of SecretBox values. Throws, like `open`, when no key of this box opens it.
   */
  reseal(sealed: string): string {
    return sealed.startsWith(this.currentPrefix) ? sealed : this.seal(this.open(sealed));
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

/** One stored SecretBox value: its row's id (any text that orders) and the sealed text. */
export interface SealedRow {
  id: string;
  sealed: string;
}

/** What a re-seal did: values moved to the current key, changed meanwhile, or not opening. */
export interface ResealTally {
  resealed: number;
  /** Changed by someone else between the read and the write (sealed under the current key by then, or gone). */
  skipped: number;
  /** Sealed under a key none of the configured ones is (or altered): left as they are. */
  unreadable: number;
}

/** Where a column of SecretBox values is read and written: its owning component's repository. */
export interface SealedColumn {
  /** Up to `limit` values not starting with `prefix`, of ids after `afterId` (all when null), in id order. */
  notUnder(prefix: string, afterId: string | null, limit: number): Promise<SealedRow[]>;
  /** Writes `to` only where the row still holds `from` (no lost update); true when written. */
  replace(id: string, from: string, to: string): Promise<boolean>;
}

const RESEAL_PAGE = 200;

/**
 * Re-seals every value of a column under the box's current key, a page at a time in id order:
 * safe to run again (values already current are not read) and beside a live service (a row
 * changed meanwhile is skipped). A value no configured key opens is counted, not fatal.
 */
export async function resealColumn(
  box: SecretBox,
  column: SealedColumn,
  onPage: (tally: ResealTally) => void = () => undefined,
): Promise<ResealTally> {
  const tally: ResealTally = { resealed: 0, skipped: 0, unreadable: 0 };
  let after: string | null = null;
  for (;;) {
    const rows = await column.notUnder(box.currentPrefix, after, RESEAL_PAGE);
    if (rows.length === 0) return tally;
    for (const row of rows) {
      let resealed: string;
      try {
        resealed = box.reseal(row.sealed);
      } catch {
        tally.unreadable++;
        continue;
      }
      if (await column.replace(row.id, row.sealed, resealed)) tally.resealed++;
      else tally.skipped++;
    }
    after = rows[rows.length - 1]!.id;
    onPage({ ...tally });
  }
}
