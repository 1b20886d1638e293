import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isPkceValue, verifiesS256 } from './pkce.js';

describe('PKCE S256 (RFC 7636)', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  // RFC 7636 Appendix B.
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('verifies the RFC example, and nothing else', () => {
    expect(verifiesS256(verifier, challenge)).toBe(true);
    expect(verifiesS256(`${verifier.slice(0, -1)}l`, challenge)).toBe(false);
    // plain is not S256: the verifier as its own challenge fails.
    expect(verifiesS256(verifier, verifier)).toBe(false);
  });

  it('takes 43 to 128 unreserved characters', () => {
    expect(isPkceValue('a'.repeat(43))).toBe(true);
    expect(isPkceValue('a'.repeat(42))).toBe(false);
    expect(isPkceValue('a'.repeat(129))).toBe(false);
    expect(isPkceValue(`${'a'.repeat(42)}+`)).toBe(false);
    expect(verifiesS256('short', createHash('sha256').update('short').digest('base64url'))).toBe(false);
  });
});
