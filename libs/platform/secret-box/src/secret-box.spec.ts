import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@kw/platform-config';
import { SecretBox, loadSecretBox, parseKey } from './index.js';

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
