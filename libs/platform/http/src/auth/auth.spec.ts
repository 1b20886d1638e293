import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { checkCsrf } from './auth.guard.js';
import { isLocalHost, parseCookies, serializeCookie } from './cookies.js';

const sha = (v: string) => createHash('sha256').update(v).digest('hex');

describe('cookies', () => {
  it('parses a Cookie header, first occurrence wins, bad encodings skipped', () => {
    expect(parseCookies('a=1; b="two"; a=3; c=%E0%A4%A; d=%20x')).toEqual({ a: '1', b: 'two', d: ' x' });
    expect(parseCookies(undefined)).toEqual({});
  });

  it('serializes Set-Cookie values', () => {
    expect(serializeCookie('kw_session', 'v', { httpOnly: true, secure: true, sameSite: 'Lax', maxAge: 0 })).toBe(
      'kw_session=v; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax',
    );
  });

  it('knows local hosts', () => {
    expect(isLocalHost('localhost:3000')).toBe(true);
    expect(isLocalHost('127.0.0.1')).toBe(true);
    expect(isLocalHost('[::1]:80')).toBe(true);
    expect(isLocalHost('kw.example.com')).toBe(false);
    expect(isLocalHost(undefined)).toBe(false);
  });
});

describe('CSRF double submit', () => {
  const value = 'csrf-value';
  it('accepts the header equal to the cookie whose hash the session holds', () => {
    expect(() => checkCsrf(value, value, sha(value))).not.toThrow();
  });

  it.each([
    ['no header', undefined, value, sha(value)],
    ['header differs from cookie', 'other', value, sha(value)],
    ['no cookie', value, undefined, sha(value)],
    ['cookie of another session', value, value, sha('other')],
    ['several headers', [value, value], value, sha(value)],
  ])('refuses with 403 CSRF_FAILED: %s', (_name, header, cookie, hash) => {
    const err = (() => {
      try {
        checkCsrf(header as string | undefined, cookie as string | undefined, hash as string);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(403);
    expect((err as AppError).code).toBe('CSRF_FAILED');
  });
});
