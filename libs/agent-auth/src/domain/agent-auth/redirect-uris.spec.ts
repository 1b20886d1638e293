import { describe, expect, it } from 'vitest';
import { matchRedirectUri, redirectUriProblem } from './redirect-uris.js';

describe('redirect URIs (OAuth 2.1, RFC 8252)', () => {
  it('registers https, loopback http and reverse-domain private schemes', () => {
    for (const uri of [
      'https://app.example.test/callback',
      'http://127.0.0.1/cb',
      'http://[::1]:8080/cb',
      'http://localhost:3000/cb',
      'com.example.notes:/oauth',
    ])
      expect(redirectUriProblem(uri), uri).toBeNull();
  });

  it('refuses plain http elsewhere, fragments, credentials, bare schemes and relative URIs', () => {
    expect(redirectUriProblem('http://app.example.test/cb')).toMatch(/https/);
    expect(redirectUriProblem('https://app.example.test/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('https://u:p@app.example.test/cb')).toMatch(/credentials/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/must be https/);
    expect(redirectUriProblem('myapp:/cb')).toMatch(/must be https/);
    expect(redirectUriProblem('/callback')).toMatch(/absolute/);
  });

  it('matches exactly, except a loopback http URI on any port', () => {
    const registered = ['https://app.example.test/cb', 'http://127.0.0.1/cb'];
    expect(matchRedirectUri(registered, 'https://app.example.test/cb')).toBe('https://app.example.test/cb');
    expect(matchRedirectUri(registered, 'https://app.example.test/cb/')).toBeUndefined();
    expect(matchRedirectUri(registered, 'https://app.example.test:8443/cb')).toBeUndefined();
    expect(matchRedirectUri(registered, 'http://127.0.0.1:51234/cb')).toBe('http://127.0.0.1:51234/cb');
    expect(matchRedirectUri(registered, 'http://127.0.0.1:51234/other')).toBeUndefined();
    expect(matchRedirectUri(registered, 'http://localhost:51234/cb')).toBeUndefined();
  });
});
