import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, inject, it, onTestFinished } from 'vitest';
import { adminEnv, signIn } from '../../support/accounts.js';
import { copyClusterTemplate } from '../../support/cluster-template.js';
import { readJson } from '../../support/http.js';
import {
  collectLogLines,
  ROOT,
  startEmbedded,
  tempDir,
  type LogLine,
  type PlatformProcess,
} from '../../support/processes.js';

/** util-linux `script` runs a command on a pseudo-terminal: stdout is then a TTY, as in `npm start`. */
const hasScript = spawnSync('script', ['--version']).status === 0;

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

  it('without ADMIN_* and without a terminal, writes the one-time password and token to DATA_DIR/first-admin.txt (0600), never to the log', async () => {
    const dataDir = tempDir('kw-bootstrap-default-');
    folders.push(dataDir);
    platform = await startEmbedded(dataDir);
    const file = path.join(dataDir, 'first-admin.txt');
    const written = readFileSync(file, 'utf8');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = /access token: (kwp_\w+)/.exec(written)?.[1];
    const password = /password: +(\S+)/.exec(written)?.[1];
    expect(token).toMatch(/^kwp_[0-9A-Za-z]{36}$/);
    expect(written).toMatch(/sign in: +POST .+\/api\/auth\/sign-in/);
    // stdout is a log stream here (a container, a shipper): it used to carry the secrets as a plain-text block.
    const output = JSON.stringify(platform.logs) + platform.stderr.join('');
    expect(output).not.toContain(token);
    expect(output).not.toContain(password);
    expect(platform.logs.filter((l) => l.level === 'raw' && String(l.msg).trim() !== '')).toEqual([]);
    expect(
      platform.logs.some((l) => l.file === file && l.level === 'warn' && String(l.msg).includes('delete the file')),
    ).toBe(true);
    const res = await profile(platform.url, token!);
    expect(res.status).toBe(200);
    expect((await readJson(res)).user).toMatchObject({ email: 'admin@localhost', platformAdmin: true });
    await signIn(platform.url, 'admin@localhost', password!);
    await platform.stop();

    // Once the operator deleted it, nothing is written again.
    rmSync(file);
    platform = await startEmbedded(dataDir);
    expect(existsSync(file)).toBe(false);
    expect(platform.logs.some((l) => l.file === file)).toBe(false);
    expect((await profile(platform.url, token!)).status).toBe(200);
  }, 180_000);

  it.runIf(hasScript)(
    'without ADMIN_*, in a terminal (npm start), prints the one-time password and token once',
    async () => {
      const dataDir = tempDir('kw-bootstrap-tty-');
      folders.push(dataDir);
      copyClusterTemplate(inject('embeddedClusterTemplate') ?? '', dataDir);
      const main = path.join(ROOT, 'dist/apps/gateway/src/main.js');
      const child = spawn('script', ['-qec', `exec '${process.execPath}' '${main}'`, '/dev/null'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', RUN_MODE: 'embedded', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const closed = new Promise((resolve) => child.once('close', resolve));
      const logs: LogLine[] = [];
      collectLogLines(child, logs);
      const node = () => logs.find((l) => l.msg === 'gateway ready')?.pid as number | undefined;
      onTestFinished(async () => {
        if (node()) process.kill(node()!, 'SIGTERM');
        else child.kill('SIGKILL');
        await closed;
      });
      await expect.poll(() => node(), { timeout: 90_000, interval: 200 }).toBeDefined();
      const printed = logs
        .filter((l) => l.level === 'raw')
        .map((l) => l.msg ?? '')
        .join('\n');
      expect(printed).toContain('First platform administrator created. These secrets are shown ONCE');
      const token = /access token: (kwp_\w+)/.exec(printed)?.[1];
      expect(token).toMatch(/^kwp_[0-9A-Za-z]{36}$/);
      expect(existsSync(path.join(dataDir, 'first-admin.txt'))).toBe(false);
      const url = String(logs.find((l) => l.msg === 'gateway ready')?.url);
      expect((await profile(url, token!)).status).toBe(200);
    },
    120_000,
  );

  it('refuses to start with an ADMIN_TOKEN that is a broken kwp_ token or too short', async () => {
    const dataDir = tempDir('kw-bootstrap-bad-');
    folders.push(dataDir);
    await expect(startEmbedded(dataDir, adminEnv({ ADMIN_TOKEN: 'too-short' }))).rejects.toThrow(/ADMIN_TOKEN/);
    await expect(startEmbedded(dataDir, adminEnv({ ADMIN_TOKEN: `kwp_${'a'.repeat(36)}` }))).rejects.toThrow(
      /ADMIN_TOKEN/,
    );
  });
});
