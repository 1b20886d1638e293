import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createToken, signIn, userWithToken, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { nodeRequest, type RawAnswer } from '../../support/raw-http.js';

/**
 * Failed credentials are throttled per address and per presented credential (issue 15,
 * docs/authentication.md). Each case speaks from its own loopback address (127.0.0.x), so the
 * per-address counters of one case never touch another's.
 */
describe('failed-credential throttle', () => {
  const dataDir = tempDir('kw-authfail-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let user: TestUser;
  let token: string;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      AUTH_FAILURES_PER_ADDRESS: '5',
      AUTH_FAILURES_PER_CREDENTIAL: '3',
      RATE_LIMIT_PER_ADDRESS: '8',
      RATE_LIMIT_PER_CREDENTIAL: '100000',
      RATE_LIMIT_PER_WORKSPACE: '100000',
    });
    base = platform.url;
    ({ user, token } = await userWithToken(base, admin.ADMIN_TOKEN));
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const from = (
    address: string,
    headers: Record<string, string> = {},
    path = '/api/workspaces',
    method = 'GET',
    body?: string,
  ) => nodeRequest(base, path, { localAddress: address, headers, method, body });
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  const statuses = async (n: number, send: (i: number) => Promise<RawAnswer>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await send(i)).status);
    return out;
  };

  function expectThrottled(answer: RawAnswer): void {
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(answer.headers['ratelimit-remaining']).toBe('0');
  }

  it('guessed bearer tokens: 401 up to the limit, then 429, and the address is refused even with a valid token', async () => {
    expect(await statuses(5, (i) => from('127.0.0.2', bearer(`guess-${i}-${'x'.repeat(20)}`)))).toEqual([
      401, 401, 401, 401, 401,
    ]);
    expectThrottled(await from('127.0.0.2', bearer('guess-6-xxxxxxxxxxxxxxxxxxxx')));
    // A guess that happens to be right learns nothing while the address is blocked.
    expectThrottled(await from('127.0.0.2', bearer(token)));
    expect((await from('127.0.0.3', bearer(token))).status).toBe(200);
  });

  it('malformed kwp_ tokens count as failures too', async () => {
    expect(await statuses(5, (i) => from('127.0.0.4', bearer(`kwp_${i}`)))).toEqual([401, 401, 401, 401, 401]);
    expectThrottled(await from('127.0.0.4', bearer('kwp_6')));
  });

  it('forged session cookies count as failures', async () => {
    const forged = (i: number) => ({ cookie: `kw_session=forged-${i}-${'y'.repeat(30)}` });
    expect(await statuses(5, (i) => from('127.0.0.5', forged(i)))).toEqual([401, 401, 401, 401, 401]);
    expectThrottled(await from('127.0.0.5', forged(6)));
  });

  it('one revoked token replayed from many addresses is refused by its own count', async () => {
    const session = await signIn(base, user.email, user.password);
    const revoked = await createToken(base, session, { name: 'to revoke' });
    const revoke = await fetch(`${base}/api/tokens/${revoked.id}`, { method: 'DELETE', headers: bearer(token) });
    expect(revoke.status).toBeLessThan(300);
    expect(await statuses(3, (i) => from(`127.0.1.${i + 1}`, bearer(revoked.token)))).toEqual([401, 401, 401]);
    expectThrottled(await from('127.0.1.9', bearer(revoked.token)));
    // The address itself is not blocked: another credential from it still works.
    expect((await from('127.0.1.9', bearer(token))).status).toBe(200);
  });

  it('requests without a credential on protected routes count against the per-address limit', async () => {
    expect(await statuses(8, () => from('127.0.0.6'))).toEqual(Array(8).fill(401));
    expectThrottled(await from('127.0.0.6'));
  });

  it('an address already limited on a public route gets 429, not 401, for a bad credential', async () => {
    expect(await statuses(8, () => from('127.0.0.7', {}, '/api/version'))).toEqual(Array(8).fill(200));
    expectThrottled(await from('127.0.0.7', {}, '/api/version'));
    expectThrottled(await from('127.0.0.7', bearer('not-a-token-at-all-zzzzzzzz')));
  });

  it('wrong passwords at sign-in are throttled per address and per email', async () => {
    const signInAs = (address: string, email: string) =>
      from(
        address,
        { 'content-type': 'application/json' },
        '/api/auth/sign-in',
        'POST',
        JSON.stringify({ email, password: 'wrong password' }),
      );
    // Per email: three addresses, one try each, then the email is blocked wherever it comes from.
    expect(await statuses(3, (i) => signInAs(`127.0.2.${i + 1}`, user.email.toUpperCase()))).toEqual([401, 401, 401]);
    expectThrottled(await signInAs('127.0.2.9', user.email));
    // Whitespace around the email names the same account, so it is the same blocked email.
    for (const variant of [` ${user.email}`, `${user.email} `, `\t${user.email}`])
      expectThrottled(await signInAs('127.0.2.10', variant));
    const other = await fetch(`${base}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: user.password }),
    });
    expect(other.status).toBe(429);
  });
});
