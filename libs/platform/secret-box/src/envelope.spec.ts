import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@kw/platform-config';
import {
  EnvelopeSealer,
  SecretBox,
  keyIdOf,
  loadEnvelopeSealer,
  loadMasterKeys,
  loadSecretBox,
  type SealedEnvelope,
} from './index.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const SECRET = 'sk-live-very-secret-value';

/** `part` with one byte of its last base64url field flipped. */
function flipped(part: string, byte = 0): string {
  const fields = part.split('.');
  const body = Buffer.from(fields[fields.length - 1]!, 'base64url');
  body[byte]! ^= 1;
  fields[fields.length - 1] = body.toString('base64url');
  return fields.join('.');
}

describe('EnvelopeSealer', () => {
  it('opens what it sealed, and stores only text without the plaintext', () => {
    const sealer = new EnvelopeSealer([keyA]);
    const envelope = sealer.seal(SECRET, 'sec_1');
    expect(Object.keys(envelope).sort()).toEqual(['ciphertext', 'keyVersion', 'wrappedKey']);
    expect(envelope.keyVersion).toBe(keyIdOf(keyA));
    expect(sealer.currentVersion).toBe(keyIdOf(keyA));
    for (const part of [envelope.ciphertext, envelope.wrappedKey]) {
      expect(part).toMatch(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/);
      expect(part).not.toContain(SECRET);
      expect(part).not.toContain('very-secret');
      expect(part).not.toContain(Buffer.from(SECRET).toString('base64url').slice(0, 12));
    }
    expect(sealer.open(envelope, 'sec_1')).toBe(SECRET);
    expect(sealer.open(sealer.seal('', 'sec_2'), 'sec_2')).toBe('');
    expect(sealer.open(sealer.seal('ünïcødé ✓', 'sec_3'), 'sec_3')).toBe('ünïcødé ✓');
  });

  it('seals the same value differently each time (fresh data key and IV)', () => {
    const sealer = new EnvelopeSealer([keyA]);
    const one = sealer.seal(SECRET, 'sec_1');
    const two = sealer.seal(SECRET, 'sec_1');
    expect(one.ciphertext).not.toBe(two.ciphertext);
    expect(one.wrappedKey).not.toBe(two.wrappedKey);
    expect(one.keyVersion).toBe(two.keyVersion);
  });

  it('refuses other associated data, altered parts, swapped keys and unknown versions', () => {
    const sealer = new EnvelopeSealer([keyA]);
    const envelope = sealer.seal(SECRET, 'sec_1');
    expect(() => sealer.open(envelope, 'sec_2')).toThrow(/does not open/);
    expect(() => sealer.open({ ...envelope, ciphertext: flipped(envelope.ciphertext) }, 'sec_1')).toThrow(
      /does not open/,
    );
    expect(() => sealer.open({ ...envelope, ciphertext: flipped(envelope.ciphertext, 30) }, 'sec_1')).toThrow();
    expect(() => sealer.open({ ...envelope, wrappedKey: flipped(envelope.wrappedKey) }, 'sec_1')).toThrow(
      /wrapped key does not open/,
    );
    // The wrapped key of another row gives another data key.
    const other = sealer.seal(SECRET, 'sec_1');
    expect(() => sealer.open({ ...envelope, wrappedKey: other.wrappedKey }, 'sec_1')).toThrow(/does not open/);
    expect(() => sealer.open({ ...envelope, keyVersion: keyIdOf(keyB) }, 'sec_1')).toThrow(/unknown key version/);
    expect(() => new EnvelopeSealer([keyB]).open(envelope, 'sec_1')).toThrow(/unknown key version/);
    expect(() => sealer.open({ ...envelope, ciphertext: 'garbage' }, 'sec_1')).toThrow(/unknown format/);
    expect(() => sealer.open({ ...envelope, wrappedKey: `${envelope.wrappedKey}.x` }, 'sec_1')).toThrow(
      /unknown format/,
    );
  });

  it('does not take a SecretBox value for an envelope part under the same key', () => {
    const box = new SecretBox([keyA]);
    const sealer = new EnvelopeSealer([keyA]);
    const sealed = box.seal(randomBytes(32).toString('latin1')).split('.');
    const envelope = sealer.seal(SECRET, 'sec_1');
    expect(() => sealer.open({ ...envelope, wrappedKey: ['v1', ...sealed.slice(2)].join('.') }, 'sec_1')).toThrow();
  });

  it('opens under a rotated key ring and re-wraps to the current key with the same ciphertext', () => {
    const underA = new EnvelopeSealer([keyA]).seal(SECRET, 'sec_1');
    const rotated = new EnvelopeSealer([keyB, keyA]);
    expect(rotated.currentVersion).toBe(keyIdOf(keyB));
    expect(rotated.open(underA, 'sec_1')).toBe(SECRET);
    expect(rotated.needsRewrap(underA)).toBe(true);

    const rewrapped = rotated.rewrap(underA);
    expect(rewrapped.keyVersion).toBe(keyIdOf(keyB));
    expect(rewrapped.ciphertext).toBe(underA.ciphertext);
    expect(rewrapped.wrappedKey).not.toBe(underA.wrappedKey);
    expect(rotated.needsRewrap(rewrapped)).toBe(false);
    expect(new EnvelopeSealer([keyB]).open(rewrapped, 'sec_1')).toBe(SECRET);
    expect(() => new EnvelopeSealer([keyA]).open(rewrapped, 'sec_1')).toThrow(/unknown key version/);
  });

  it('copies an envelope that is already current, and refuses to re-wrap an unknown version', () => {
    const sealer = new EnvelopeSealer([keyB, keyA]);
    const current = { ...sealer.seal(SECRET, 'sec_1'), id: 'sec_1' } as SealedEnvelope;
    const copy = sealer.rewrap(current);
    expect(copy).toEqual({
      ciphertext: current.ciphertext,
      wrappedKey: current.wrappedKey,
      keyVersion: current.keyVersion,
    });
    expect(copy).not.toBe(current);
    const stranger = new EnvelopeSealer([randomBytes(32)]).seal(SECRET, 'sec_1');
    expect(sealer.needsRewrap(stranger)).toBe(true);
    expect(() => sealer.rewrap(stranger)).toThrow(/unknown key version/);
  });

  it('refuses an empty key ring and keys of another length', () => {
    expect(() => new EnvelopeSealer([])).toThrow(/needs a master key/);
    expect(() => new EnvelopeSealer([randomBytes(16)])).toThrow(/32 bytes/);
  });
});

describe('loadEnvelopeSealer', () => {
  it('uses the configured keys, current first, like loadSecretBox', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kw-envelope-'));
    const before = loadEnvelopeSealer(
      loadConfig({ DATA_DIR: dir, SECRETS_ENCRYPTION_KEY: keyA.toString('hex') }),
      'chat',
    ).seal(SECRET, 'sec_1');
    const config = loadConfig({
      DATA_DIR: dir,
      SECRETS_ENCRYPTION_KEY: keyB.toString('base64'),
      SECRETS_ENCRYPTION_KEY_PREVIOUS: keyA.toString('hex'),
    });
    expect(loadMasterKeys(config, 'chat')).toEqual([keyB, keyA]);
    const sealer = loadEnvelopeSealer(config, 'chat');
    expect(sealer.currentVersion).toBe(keyIdOf(keyB));
    expect(sealer.open(before, 'sec_1')).toBe(SECRET);
  });

  it('shares the embedded DATA_DIR key with loadSecretBox', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kw-envelope-'));
    const config = loadConfig({ DATA_DIR: dir });
    const sealer = loadEnvelopeSealer(config, 'chat');
    const [embedded] = loadMasterKeys(config, 'chat');
    expect(sealer.currentVersion).toBe(keyIdOf(embedded!));
    expect(new SecretBox([embedded!]).open(loadSecretBox(config, 'chat').seal('x'))).toBe('x');
    expect(loadEnvelopeSealer(config, 'chat').open(sealer.seal(SECRET, 'sec_1'), 'sec_1')).toBe(SECRET);
  });

  it('refuses to start a distributed component without a configured key', () => {
    const config = loadConfig({
      RUN_MODE: 'distributed',
      DATABASE_URL: 'postgres://x@localhost/x',
      NATS_URL: 'nats://127.0.0.1:4222',
    });
    expect(() => loadEnvelopeSealer(config, 'chat')).toThrow(
      /SECRETS_ENCRYPTION_KEY is required by the chat component/,
    );
  });
});
