import { describe, expect, it } from 'vitest';
import { scrubSecret } from './scrub-secret.js';

const KEY = 'sk-operator-mock-key-123456';
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('scrubSecret: the key sent, in whatever form a provider quotes it', () => {
  it.each([
    ['whole', `bad key ${KEY}.`],
    ['in JSON quotes', `{"key":"${KEY}"}`],
    ['as base64', `bad key ${b64(KEY)}`],
    ['as base64url without padding', `bad key ${b64(KEY).replace(/=+$/, '')}`],
    ['inside a base64 Basic credential', `Basic ${b64(`user:${KEY}`)}`],
    ['after one byte in base64', `x ${b64(`a${KEY}`)}`],
    ['after two bytes in base64', `x ${b64(`ab${KEY}`)}`],
    ['as its first 20 characters', `bad key ${KEY.slice(0, 20)}...`],
    ['as its last 14 characters', `bad key ...${KEY.slice(-14)}`],
    ['reversed', `bad key ${[...KEY].reverse().join('')}!`],
    ['as hex', `bad key hex=${Buffer.from(KEY).toString('hex')}`],
    ['as upper-case hex', `bad key 0x${Buffer.from(KEY).toString('hex').toUpperCase()}`],
    ['as a hex slice', `bad key ${Buffer.from(KEY).toString('hex').slice(6, 40)}`],
    ['URL-encoded', `?key=${encodeURIComponent('sk/op+erator=mock-key-1234')}`, 'sk/op+erator=mock-key-1234'],
  ])('scrubs it %s', (_form, text, key = KEY) => {
    const scrubbed = scrubSecret(text, key);
    expect(scrubbed).toContain('***');
    for (let i = 0; i + 12 <= key.length; i++) expect(scrubbed).not.toContain(key.slice(i, i + 12));
    const hex = Buffer.from(key).toString('hex');
    for (const encoded of [b64(key), b64(`user:${key}`), encodeURIComponent(key), [...key].reverse().join('')])
      for (let i = 4; i + 12 <= encoded.length - 4; i++) expect(scrubbed).not.toContain(encoded.slice(i, i + 12));
    for (const encoded of [hex, hex.toUpperCase()])
      for (let i = 0; i + 12 <= encoded.length; i++) expect(scrubbed).not.toContain(encoded.slice(i, i + 12));
  });

  it('keeps the words around it, and one *** per quoted run', () => {
    expect(scrubSecret(`Incorrect API key provided: ${KEY}. Also ${KEY.slice(0, 20)}!`, KEY)).toBe(
      'Incorrect API key provided: ***. Also ***!',
    );
  });

  it("leaves short pieces: a provider's own mask, a prefix every key shares, unrelated base64", () => {
    const text = `Incorrect API key provided: sk-opera****3456. See ${b64('hello world, nothing to see here')}`;
    expect(scrubSecret(text, KEY)).toBe(text);
  });

  it('scrubs a short key whole, and leaves text alone without a key', () => {
    expect(scrubSecret('key sk-secret-1 refused', 'sk-secret-1')).toBe('key *** refused');
    expect(scrubSecret('nothing to hide', undefined)).toBe('nothing to hide');
    expect(scrubSecret('abc', 'ab')).toBe('abc');
  });
});
