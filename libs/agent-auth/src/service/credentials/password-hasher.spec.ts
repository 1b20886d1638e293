import { describe, expect, it } from 'vitest';
import { hashPassword, UNMATCHABLE_HASH, verifyPassword } from './password-hasher.js';

describe('password hashing', () => {
  it('hashes with scrypt into a self-describing string and verifies', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('refuses malformed hashes and the unmatchable one', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$a$b$c$d$e')).toBe(false);
    expect(await verifyPassword('', UNMATCHABLE_HASH)).toBe(false);
  });
});
