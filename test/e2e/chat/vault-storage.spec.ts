import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { rmSync } from 'node:fs';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { createTestDatabase } from '../../support/postgres.js';
import { ROOT, startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { startAnthropicStandIn } from '../../support/stand-ins/anthropic-stand-in.js';
import { startOpenAiStandIn } from '../../support/stand-ins/openai-stand-in.js';
import type { StandIn } from '../../support/stand-ins/stand-in-server.js';
import { call, providersConfig } from './chat-fixture.js';

/** Runs `npm run vault:rewrap`'s program with the platform's settings; resolves with its stdout. */
function rewrap(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/apps/chat/src/rewrap-vault.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * The vault in a real PostgreSQL: what a row holds (no plaintext, a wrapped data key and the
 * master key's version), who may see a secret (its owner; anyone else gets the 404 of an unknown
 * id), and master key rotation: a restart with the new key and the previous one, the documented
 * re-wrap command, and the old values still opening (the user's key still reaches the provider).
 */
describeWith(['postgres'], 'the vault in PostgreSQL', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-vault-pg-');
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('hex');
  const VALUE = `sk-vault-${randomBytes(12).toString('hex')}`;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: PlatformProcess;
  let db: pg.Client;
  let openai: StandIn;
  let anthropic: StandIn;
  let env: Record<string, string>;
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  let stranger: Awaited<ReturnType<typeof userWithToken>>;
  let secretId: string;

  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startOpenAiStandIn(), startAnthropicStandIn()]);
    database = await createTestDatabase('kw_vault');
    env = {
      DATABASE_URL: database.url,
      ...admin,
      CHAT_PROVIDERS: JSON.stringify(providersConfig(openai, anthropic, openai)),
    };
    platform = await startEmbedded(dataDir, { ...env, SECRETS_ENCRYPTION_KEY: oldKey });
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    owner = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    stranger = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const created = await call(platform.url, owner.token, 'POST', '/api/v1/vault/secrets', {
      name: 'openai',
      type: 'api-key',
      provider: 'standin',
      value: VALUE,
    });
    expect(created.status).toBe(201);
    secretId = created.body.secret.id;
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await platform?.stop();
    await database?.drop();
    await Promise.all([openai?.close(), anthropic?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores no plaintext: a ciphertext, a wrapped data key and the master key version', async () => {
    const { rows } = await db.query('SELECT * FROM control.vault_secrets WHERE id = $1', [secretId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ user_id: owner.user.id, name: 'openai', type: 'api-key', provider: 'standin' });
    expect(rows[0].key_version).toMatch(/^[0-9a-f]{8}$/);
    const { rows: all } = await db.query('SELECT * FROM control.vault_secrets');
    expect(JSON.stringify(all)).not.toContain(VALUE);
    expect(JSON.stringify(all)).not.toContain(VALUE.slice(9));
  });

  it("answers another user's secret exactly like an unknown one (404), and changes nothing", async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { description: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const theirs = await call(platform.url, stranger.token, method, `/api/v1/vault/secrets/${secretId}`, body);
      const none = await call(platform.url, stranger.token, method, `/api/v1/vault/secrets/${unknown}`, body);
      expect(theirs.status).toBe(404);
      expect(theirs.text).toBe(none.text);
    }
    const list = await call(platform.url, stranger.token, 'GET', '/api/v1/vault/secrets');
    expect(list.body.secrets).toEqual([]);
    const mine = await call(platform.url, owner.token, 'GET', `/api/v1/vault/secrets/${secretId}`);
    expect(mine.body.secret.description).toBe('');
  });

  it('refuses a duplicate name (409) and an api-key without a provider (400), writing nothing', async () => {
    const dup = await call(platform.url, owner.token, 'POST', '/api/v1/vault/secrets', {
      name: 'openai',
      type: 'generic',
      value: 'x',
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('secret_name_taken');
    const noProvider = await call(platform.url, owner.token, 'POST', '/api/v1/vault/secrets', {
      name: 'loose key',
      type: 'api-key',
      value: 'x',
    });
    expect(noProvider.status).toBe(400);
    expect(noProvider.body.error.param).toBe('provider');
    const { rows } = await db.query('SELECT count(*)::int AS n FROM control.vault_secrets WHERE user_id = $1', [
      owner.user.id,
    ]);
    expect(rows[0].n).toBe(1);
  });

  it('records every model call: user, credential, whose key paid, model, provider, tokens, latency', async () => {
    const client = new OpenAI({ baseURL: `${platform.url}/api/v1`, apiKey: stranger.token, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'count me' }] });
    const mine = new OpenAI({ baseURL: `${platform.url}/api/v1`, apiKey: owner.token, maxRetries: 0 });
    await mine.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'and me' }] });
    await mine.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'my key' }] });
    // A streamed call is recorded too, with the usage of its last chunk.
    const stream = await mine.chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'streamed' }],
      stream: true,
    });
    for await (const chunk of stream) void chunk;
    const rows = async (userId: string) =>
      (await db.query('SELECT * FROM control.model_usage WHERE user_id = $1 ORDER BY at, model', [userId])).rows;
    await expect.poll(async () => (await rows(owner.user.id)).length, { timeout: 10_000 }).toBe(3);
    const [theirs] = await rows(stranger.user.id);
    expect(theirs).toMatchObject({
      token_id: stranger.tokenId,
      credential: 'operator',
      model: 'gpt-4o',
      provider: 'standin',
      kind: 'chat',
      images: 0,
      status: 'ok',
    });
    expect(theirs.input_tokens).toBeGreaterThan(0);
    expect(theirs.output_tokens).toBeGreaterThan(0);
    expect(theirs.latency_ms).toBeGreaterThanOrEqual(0);
    const owned = await rows(owner.user.id);
    const claude = owned.filter((r) => r.model === 'claude-haiku-4-5');
    expect(claude).toHaveLength(2);
    for (const row of claude) {
      expect(row).toMatchObject({ credential: 'operator', provider: 'claude', status: 'ok' });
      expect(row.output_tokens).toBeGreaterThan(0);
    }
    expect(owned.find((r) => r.model === 'gpt-4o')).toMatchObject({
      credential: `vault:${secretId}`,
      provider: 'standin',
    });
  });

  it('rotates the master key: re-wrap with the documented command, old values still open', async () => {
    const before = (await db.query('SELECT * FROM control.vault_secrets WHERE id = $1', [secretId])).rows[0];
    await platform.stop();
    // Step 1: the new key, with the old one as the previous key.
    const rotated = { ...env, SECRETS_ENCRYPTION_KEY: newKey, SECRETS_ENCRYPTION_KEY_PREVIOUS: oldKey };
    const result = await rewrap({ ...rotated, DATA_DIR: dataDir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').pop()!)).toMatchObject({ rewrapped: 1 });
    const after = (await db.query('SELECT * FROM control.vault_secrets WHERE id = $1', [secretId])).rows[0];
    expect(after.key_version).not.toBe(before.key_version);
    expect(after.wrapped_key).not.toBe(before.wrapped_key);
    expect(after.ciphertext).toBe(before.ciphertext);
    // Step 3: the previous key is gone; the value still opens and reaches the provider.
    platform = await startEmbedded(dataDir, { ...env, SECRETS_ENCRYPTION_KEY: newKey });
    const sent = openai.requests.length;
    const client = new OpenAI({ baseURL: `${platform.url}/api/v1`, apiKey: owner.token, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const upstream = openai.requests.slice(sent).find((r) => r.method === 'POST')!;
    expect(upstream.headers.authorization).toBe(`Bearer ${VALUE}`);
    // A second run has nothing left to do.
    await platform.stop();
    const again = await rewrap({ ...env, SECRETS_ENCRYPTION_KEY: newKey, DATA_DIR: dataDir });
    expect(JSON.parse(again.stdout.trim().split('\n').pop()!)).toEqual({ rewrapped: 0, skipped: 0 });
    platform = await startEmbedded(dataDir, { ...env, SECRETS_ENCRYPTION_KEY: newKey });
    // Two stops, two starts of the embedded platform and two runs of the command: each start took
    // up to 30 s on a loaded 2-core CI machine (the setup's one start has 120 s).
  }, 240_000);
});
