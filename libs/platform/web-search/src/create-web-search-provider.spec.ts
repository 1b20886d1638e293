import { describe, expect, it } from 'vitest';
import { ExaProvider, SearxngProvider, createWebSearchProvider } from './index.js';

describe('createWebSearchProvider', () => {
  it('answers undefined when no provider is configured', () => {
    expect(createWebSearchProvider({ timeoutMs: 1_000 })).toBeUndefined();
    expect(createWebSearchProvider({ url: 'http://searxng:8080', timeoutMs: 1_000 })).toBeUndefined();
  });

  it('makes the configured provider', () => {
    const searxng = createWebSearchProvider({ provider: 'searxng', url: 'http://searxng:8080', timeoutMs: 1_000 });
    expect(searxng).toBeInstanceOf(SearxngProvider);
    expect(searxng!.id).toBe('searxng');
    const exa = createWebSearchProvider({ provider: 'exa', apiKey: 'k', timeoutMs: 1_000 });
    expect(exa).toBeInstanceOf(ExaProvider);
    expect(exa!.id).toBe('exa');
  });

  it('refuses an incomplete configuration with a clear error', () => {
    expect(() => createWebSearchProvider({ provider: 'searxng', timeoutMs: 1_000 })).toThrow(
      /searxng needs WEB_SEARCH_URL/,
    );
    expect(() => createWebSearchProvider({ provider: 'exa', timeoutMs: 1_000 })).toThrow(
      /exa needs WEB_SEARCH_API_KEY/,
    );
    expect(() => createWebSearchProvider({ provider: 'searxng', url: 'not a url', timeoutMs: 1_000 })).toThrow(
      'the SearXNG URL is not a valid URL',
    );
    expect(() => createWebSearchProvider({ provider: 'searxng', url: 'ftp://host', timeoutMs: 1_000 })).toThrow(
      'the SearXNG URL must be an http(s) URL',
    );
  });
});
