import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@kw/platform-config';
import { SecretBox, loadSecretBox, parseKey, resealColumn, type SealedRow } from './index.js';

describe('SecretBox', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and the sealed text does not contain the secret', () => {
    const box = new SecretBox([key]);
    const sealed = box.seal('whsec_top-secret');
    expect(sealed).not.toContain('top-secret');
    expect(box.open(sealed)).toBe('whsec_top-secret');
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses an altered value and a value of another key', () => {
    const box = new SecretBox([key]);
    const sealed = box.seal('value');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] ^= 1;
    expect(() => box.open([...parts.slice(0, 3), body.toString('base64url')].join('.'))).toThrow();
    expect(() => new SecretBox([randomBytes(32)]).open(sealed)).toThrow(/unknown format or key/);
  });

  it('keeps opening values of the previous key after a key change', () => {
    const old = new SecretBox([key]).seal('kept');
    const rotated = new SecretBox([randomBytes(32), key]);
    expect(rotated.open(old)).toBe('kept');
  });

  it('parses hex and base64 keys and refuses other lengths', () => {
    expect(parseKey(key.toString('hex'))).toEqual(key);
    expect(parseKey(key.toString('base64'))).toEqual(key);
    expect(() => parseKey('short')).toThrow(/32 bytes/);
  });

  it('keeps one generated key in DATA_DIR in the embedded mode, readable by the owner only', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kw-box-'));
    const config = loadConfig({ DATA_DIR: dir });
    const sealed = loadSecretBox(config, 'webhooks').seal('x');
    expect(loadSecretBox(config, 'webhooks').open(sealed)).toBe('x');
    expect(statSync(path.join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dir, 'secrets.key'), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses to start a distributed component without a configured key', () => {
    const config = loadConfig({
      RUN_MODE: 'distributed',
      DATABASE_URL: 'postgres://x@localhost/x',
      NATS_URL: 'nats://127.0.0.1:4222',
    });
    expect(() => loadSecretBox(config, 'webhooks')).toThrow(
      /SECRETS_ENCRYPTION_KEY is required by the webhooks component/,
    );
  });
});

describe('resealColumn', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  /** An in-memory column: ids in order, values replaced only when unchanged. */
  function column(values: Record<string, string>) {
    const rows = new Map(Object.entries(values));
    return {
      rows,
      async notUnder(prefix: string, afterId: string | null, limit: number): Promise<SealedRow[]> {
        return [...rows]
          .filter(([id, sealed]) => !sealed.startsWith(prefix) && (afterId === null || id > afterId))
          .sort(([a], [b]) => a.localeCompare(b))
          .slice(0, limit)
          .map(([id, sealed]) => ({ id, sealed }));
      },
      async replace(id: string, from: string, to: string) {
        if (rows.get(id) !== from) return false;
        rows.set(id, to);
        return true;
      },
    };
  }

  it('moves every value to the current key, counts the ones no key opens, and has nothing left on a second run', async () => {
    const before = new SecretBox([oldKey]);
    const rotated = new SecretBox([newKey, oldKey]);
    const stranger = new SecretBox([randomBytes(32)]).seal('lost');
    const values: Record<string, string> = { z: stranger, c: rotated.seal('already current') };
    for (let i = 0; i < 450; i++) values[`k${String(i).padStart(4, '0')}`] = before.seal(`value ${i}`);
    const col = column(values);
    expect(await resealColumn(rotated, col)).toEqual({ resealed: 450, skipped: 0, unreadable: 1 });
    const alone = new SecretBox([newKey]);
    expect(alone.open(col.rows.get('k0449')!)).toBe('value 449');
    expect(col.rows.get('c')!.startsWith(rotated.currentPrefix)).toBe(true);
    expect(col.rows.get('z')).toBe(stranger);
    expect(await resealColumn(rotated, col)).toEqual({ resealed: 0, skipped: 0, unreadable: 1 });
  });

  it('skips a value changed between the read and the write', async () => {
    const rotated = new SecretBox([newKey, oldKey]);
    const col = column({ a: new SecretBox([oldKey]).seal('x') });
    const racing = { ...col, replace: async () => false };
    expect(await resealColumn(rotated, racing)).toEqual({ resealed: 0, skipped: 1, unreadable: 0 });
  });
});
