import { describe, expect, it } from 'vitest';
import { classifyBearer, displayPrefixOf, generateToken, hashToken } from './token-format.js';

describe('personal access token format', () => {
  it('is kwp_ + 30 base62 + 6 base62 checksum, stored as SHA-256 hex and a display prefix', () => {
    const { token, tokenHash, displayPrefix } = generateToken();
    expect(token).toMatch(/^kwp_[0-9A-Za-z]{36}$/);
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenHash).toBe(hashToken(token));
    expect(displayPrefix).toBe(token.slice(0, 12));
    expect(displayPrefixOf(token)).toBe(displayPrefix);
    expect(classifyBearer(token)).toBe('kwp');
  });

  it('never repeats', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => generateToken().token));
    expect(tokens.size).toBe(200);
  });

  it('refuses a kwp_ token whose checksum or shape is wrong', () => {
    const { token } = generateToken();
    const last = token.at(-1)!;
    expect(classifyBearer(token.slice(0, -1) + (last === 'a' ? 'b' : 'a'))).toBe('malformed');
    // A changed random character breaks the checksum too.
    const first = token[4];
    expect(classifyBearer(`kwp_${first === 'A' ? 'B' : 'A'}${token.slice(5)}`)).toBe('malformed');
    expect(classifyBearer(token.slice(0, -1))).toBe('malformed');
    expect(classifyBearer(`${token}x`)).toBe('malformed');
    expect(classifyBearer('kwp_')).toBe('malformed');
  });

  it('accepts operator secrets of 32+ printable characters for lookup, nothing shorter', () => {
    expect(classifyBearer('x'.repeat(32))).toBe('opaque');
    expect(classifyBearer('x'.repeat(31))).toBe('malformed');
    expect(classifyBearer(`${'x'.repeat(31)} `)).toBe('malformed');
    expect(classifyBearer('x'.repeat(257))).toBe('malformed');
  });
});
