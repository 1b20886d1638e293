import { describe, expect, it } from 'vitest';
import {
  AGENT_ACCESS_PREFIX,
  AGENT_REFRESH_PREFIX,
  CLAIM_TOKEN_PREFIX,
  classifyBearer,
  displayPrefixOf,
  generateToken,
  hashToken,
  secretPrefixOf,
} from './token-format.js';

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

  it('takes agent access tokens as bearers, never refresh or claim tokens', () => {
    const access = generateToken(AGENT_ACCESS_PREFIX).token;
    expect(access).toMatch(/^kwa_[0-9A-Za-z]{36}$/);
    expect(classifyBearer(access)).toBe('agent');
    expect(secretPrefixOf(access)).toBe('kwa_');
    // Refresh and claim tokens are secrets of their own endpoints, not credentials of the API.
    expect(classifyBearer(generateToken(AGENT_REFRESH_PREFIX).token)).toBe('malformed');
    expect(classifyBearer(generateToken(CLAIM_TOKEN_PREFIX).token)).toBe('malformed');
    // A wrong checksum is refused without a lookup, whatever the prefix.
    expect(classifyBearer(access.slice(0, -1) + (access.at(-1) === 'a' ? 'b' : 'a'))).toBe('malformed');
    expect(secretPrefixOf(`kwx_${access.slice(4)}`)).toBeNull();
  });
});
