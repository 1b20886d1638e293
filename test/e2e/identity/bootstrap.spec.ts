import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { adminEnv, signIn } from '../../support/accounts.js';
import { readJson } from '../../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';

/** The first administrator: from ADMIN_* on an empty database, ignored afterwards. */
describe('first administrator bootstrap', () => {
  const folders: string[] = [];
  let platform: PlatformProcess | undefined;

  afterEach(async () => {
    await platform?.stop();
    platform = undefined;
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const profile = (base: string, token: string) =>
    fetch(`${base}/api/profile`, { headers: { authorization: `Bearer ${token}` } });

  it('creates the admin from ADMIN_* on a fresh folder, and ignores other values on the next start', async () => {
    const dataDir = tempDir('kw-bootstrap-');
    folders.push(dataDir);
    const first = adminEnv({ ADMIN_EMAIL: 'Root@Example.test' });
    platform = await startEmbedded(dataDir, first);
    const res = await profile(platform.url, first.ADMIN_TOKEN);
    expect(res.status).toBe(200);
    expect((await readJson(res)).user).toMatchObject({
      email: 'root@example.test',
      platformAdmin: true,
      status: 'active',
    });
    const validated = await readJson(
      await fetch(`${platform.url}/api/auth/validate-token`, {
        headers: { authorization: `Bearer ${first.ADMIN_TOKEN}` },
      }),
    );
    expect(validated.credential).toMatchObject({ kind: 'pat', scopes: ['*'], workspaces: 'all' });
    await signIn(platform.url, first.ADMIN_EMAIL, first.ADMIN_PASSWORD);
    // The operator's token is not printed back.
    expect(platform.logs.some((l) => JSON.stringify(l).includes(first.ADMIN_TOKEN))).toBe(false);
    await platform.stop();

    const second = adminEnv({ ADMIN_EMAIL: 'other@example.test' });
    platform = await startEmbedded(dataDir, second);
    expect((await profile(platform.url, first.ADMIN_TOKEN)).status).toBe(200);
    expect((await profile(platform.url, second.ADMIN_TOKEN)).status).toBe(401);
    const signInOther = await fetch(`${platform.url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: second.ADMIN_EMAIL, password: second.ADMIN_PASSWORD }),
    });
    expect(signInOther.status).toBe(401);
    expect(
      platform.logs.some(
        (l) => typeof l.msg === 'string' && l.msg.includes('ADMIN_EMAIL, ADMIN_PASSWORD and ADMIN_TOKEN are ignored'),
      ),
    ).toBe(true);
  });

  it('without ADMIN_*, the embedded mode creates admin@localhost and prints a one-time token once', async () => {
    const dataDir = tempDir('kw-bootstrap-default-');
    folders.push(dataDir);
    platform = await startEmbedded(dataDir);
    const printed = platform.logs
      .filter((l) => l.level === 'raw')
      .map((l) => l.msg ?? '')
      .join('\n');
    const token = /access token: (kwp_\w+)/.exec(printed)?.[1];
    const password = /password: +(\S+)/.exec(printed)?.[1];
    expect(token).toMatch(/^kwp_[0-9A-Za-z]{36}$/);
    expect(printed).toMatch(/sign in: +POST .+\/api\/auth\/sign-in/);
    const res = await profile(platform.url, token!);
    expect(res.status).toBe(200);
    expect((await readJson(res)).user).toMatchObject({ email: 'admin@localhost', platformAdmin: true });
    await signIn(platform.url, 'admin@localhost', password!);
    await platform.stop();

    platform = await startEmbedded(dataDir);
    expect(platform.logs.some((l) => l.level === 'raw' && String(l.msg).includes('access token:'))).toBe(false);
    expect((await profile(platform.url, token!)).status).toBe(200);
  });

  it('refuses to start with an ADMIN_TOKEN that is a broken kwp_ token or too short', async () => {
    const dataDir = tempDir('kw-bootstrap-bad-');
    folders.push(dataDir);
    await expect(startEmbedded(dataDir, adminEnv({ ADMIN_TOKEN: 'too-short' }))).rejects.toThrow(/ADMIN_TOKEN/);
    await expect(startEmbedded(dataDir, adminEnv({ ADMIN_TOKEN: `kwp_${'a'.repeat(36)}` }))).rejects.toThrow(
      /ADMIN_TOKEN/,
    );
  });
});
