import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, authHeaders, userWithToken } from '../support/accounts.js';
import { readJson } from '../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../support/processes.js';

describe('rate limits', () => {
  const dataDir = tempDir('kw-rate-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let token: string;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      RATE_LIMIT_PER_CREDENTIAL: '5',
      RATE_LIMIT_PER_WORKSPACE: '1000',
      RATE_LIMIT_WINDOW_SECONDS: '2',
    });
    ({ token } = await userWithToken(platform.url, admin.ADMIN_TOKEN, { scopes: ['*'] }));
    // Let the window the set-up requests opened close.
    await new Promise((r) => setTimeout(r, 2100));
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('allows exactly the configured count per credential, with decreasing headers, then 429 with Retry-After, then again after it', async () => {
    const get = () => fetch(`${platform.url}/api/profile`, { headers: authHeaders(token) });
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await get();
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    const refused = await get();
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(await readJson(refused)).toMatchObject({ code: 'RATE_LIMITED' });

    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
    const again = await get();
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('counts each credential on its own', async () => {
    const other = await userWithToken(platform.url, admin.ADMIN_TOKEN, { scopes: ['*'] });
    await new Promise((r) => setTimeout(r, 2100));
    const res = await fetch(`${platform.url}/api/profile`, { headers: authHeaders(other.token) });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe('4');
  });
});

describe('rate limits without a credential', () => {
  const dataDir = tempDir('kw-rate-anon-');
  let platform: PlatformProcess;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, { RATE_LIMIT_PER_ADDRESS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' });
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('limits public routes per address, but never probes or metrics', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${platform.url}/api/version`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${platform.url}/metrics`)).status).toBe(200);
    }
  });

  it('answers the consent and claim pages as pages when the address is over its limit, never a JSON body', async () => {
    // The address spent its budget above (or spends it now).
    for (let i = 0; i < 4; i++) await fetch(`${platform.url}/api/version`);
    const pages: Array<[string, string]> = [
      ['/oauth2/authorize?response_type=code&client_id=someone', '<title>Authorization failed</title>'],
      [`/agent/claim/${crypto.randomUUID()}`, '<title>Approve an agent</title>'],
    ];
    for (const [path, title] of pages) {
      const res = await fetch(`${platform.url}${path}`, { redirect: 'manual' });
      expect({ path, status: res.status }).toEqual({ path, status: 429 });
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.text()).toContain(title);
    }
  });
});
