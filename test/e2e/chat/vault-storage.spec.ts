import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { rmSync } from 'node:fs';
import OpenAI from 'openai';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { createTestDatabase } from '../../support/postgres.js';
import { ROOT, startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { startAnthropicStandIn } from '../../support/stand-ins/anthropic-stand-in.js';
import { startOpenAiStandIn } from '../../support/stand-ins/openai-stand-in.js';
import type { StandIn } from '../../support/stand-ins/stand-in-server.js';
import { startReceiver, TEST_CA_FILE, waitFor } from '../webhooks/receiver.js';
import { call, providersConfig } from './chat-fixture.js';

/** Runs `npm run vault:rewrap`'s program with the platform's settings; resolves with its output. */
function rewrap(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/apps/gateway/src/rewrap-secrets.js')], {
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
 * re-wrap command, then without the old key everything sealed before still opens (the user's key
 * still reaches the provider, a webhook delivers signed with its header, an embed key chats as its
 * scoped token, the hosted zones' handoff key still signs); and a key changed without the command
 * fails cleanly (a failed delivery attempt, SECRET_UNREADABLE answers).
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
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let ws: string;
  let noteTypeId: string;
  let webhookId: string;
  let whsec: string;
  let embedKey: string;
  let handoffKid: string;

  beforeAll(async () => {
    [openai, anthropic, receiver] = await Promise.all([startOpenAiStandIn(), startAnthropicStandIn(), startReceiver()]);
    database = await createTestDatabase('kw_vault');
    env = {
      DATABASE_URL: database.url,
      ...admin,
      CHAT_PROVIDERS: JSON.stringify(providersConfig(openai, anthropic, openai)),
      // The webhook receiver runs on loopback with a certificate of the test CA.
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOKS_CA_FILE: TEST_CA_FILE,
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
    await Promise.all([openai?.close(), anthropic?.close(), receiver?.close()]);
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

  /** Everything else sealed with the master key: a webhook (header, signing secret), an embed key's scoped token, a handoff key. */
  async function sealEverything() {
    ws = (await call(platform.url, owner.token, 'POST', '/api/workspaces', { name: 'Sealed' })).body.workspace.id;
    noteTypeId = (await call(platform.url, owner.token, 'GET', `/api/workspaces/${ws}/fragment-types`)).body.items[0]
      .id;
    const hook = await call(platform.url, owner.token, 'POST', `/api/workspaces/${ws}/webhooks`, {
      name: 'receiver',
      url: receiver.url('/rotated'),
      events: ['fragment.created'],
      headers: { 'X-Receiver-Token': 'receiver-token-1' },
    });
    expect(hook.status, hook.text).toBe(201);
    webhookId = hook.body.webhook.id;
    whsec = hook.body.secret;
    const config = await call(platform.url, owner.token, 'POST', '/api/v2/configs', { workspaceId: ws, name: 'kiosk' });
    expect(config.status, config.text).toBe(201);
    const key = await call(platform.url, owner.token, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
      label: 'kiosk',
      allowedDomains: ['https://site.example'],
      scopedToken: owner.token,
    });
    expect(key.status, key.text).toBe(201);
    embedKey = key.body.token;
    const jwks = await fetch(`${platform.url}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    handoffKid = ((await jwks.json()) as { keys: Array<{ kid: string }> }).keys[0]!.kid;
  }

  const embedChat = () =>
    fetch(`${platform.url}/api/v2/embed/chat?key=${encodeURIComponent(embedKey)}`, {
      method: 'POST',
      headers: { origin: 'https://site.example', 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
    });
  const trigger = () =>
    call(platform.url, owner.token, 'POST', `/api/workspaces/${ws}/webhooks/trigger`, {
      eventType: 'fragment.created',
      webhookId,
    });
  const jwksKids = async () =>
    (
      (await (await fetch(`${platform.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }
    ).keys.map((k) => k.kid);

  it('rotates the master key as documented: new key with the previous one, re-wrap, old key removed; everything sealed still opens', async () => {
    await sealEverything();
    const before = (await db.query('SELECT * FROM control.vault_secrets WHERE id = $1', [secretId])).rows[0];
    await platform.stop();
    // Step 1: the new key, with the old one as the previous key; restart. Old values still open.
    const rotated = { ...env, SECRETS_ENCRYPTION_KEY: newKey, SECRETS_ENCRYPTION_KEY_PREVIOUS: oldKey };
    platform = await startEmbedded(dataDir, rotated);
    expect((await trigger()).body.outcomes[0]).toMatchObject({ ok: true });
    await platform.stop();
    // Step 2: the documented command (the embedded platform stopped: one process per data folder).
    const result = await rewrap({ ...rotated, DATA_DIR: dataDir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').pop()!)).toMatchObject({
      vault: { rewrapped: 1 },
      embedKeyTokens: { resealed: 1, unreadable: 0 },
      webhookHeaders: { resealed: 1, unreadable: 0 },
      webhookSecrets: { resealed: 1, unreadable: 0 },
      handoffKeys: { resealed: 1, unreadable: 0 },
    });
    const after = (await db.query('SELECT * FROM control.vault_secrets WHERE id = $1', [secretId])).rows[0];
    expect(after.key_version).not.toBe(before.key_version);
    expect(after.wrapped_key).not.toBe(before.wrapped_key);
    expect(after.ciphertext).toBe(before.ciphertext);

    // Step 3: the previous key is gone.
    platform = await startEmbedded(dataDir, { ...env, SECRETS_ENCRYPTION_KEY: newKey });
    // The user's own key still opens and reaches the provider.
    const sent = openai.requests.length;
    const client = new OpenAI({ baseURL: `${platform.url}/api/v1`, apiKey: owner.token, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const upstream = openai.requests.slice(sent).find((r) => r.method === 'POST')!;
    expect(upstream.headers.authorization).toBe(`Bearer ${VALUE}`);
    // A real event is delivered, signed with the endpoint's secret, with its header.
    const fragment = await call(platform.url, owner.token, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: noteTypeId,
      title: 'After the rotation',
      content: 'Delivered with the re-sealed secret',
    });
    expect(fragment.status, fragment.text).toBe(201);
    const [got] = await waitFor('the delivery after the rotation', () => {
      const hits = receiver.at('/rotated').filter((r) => r.body.includes('After the rotation'));
      return hits.length > 0 && hits;
    });
    expect(new Webhook(whsec).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({
      type: 'fragment.created',
    });
    expect(got!.headers['x-receiver-token']).toBe('receiver-token-1');
    // The embed key chats as its scoped token.
    const chat = await embedChat();
    const chatText = await chat.text();
    expect(chat.status, chatText).toBe(200);
    expect(chatText).toContain('event: done');
    // The handoff key still signs: no new key was needed.
    expect(await jwksKids()).toEqual([handoffKid]);

    // A second run has nothing left to do.
    await platform.stop();
    const again = await rewrap({ ...env, SECRETS_ENCRYPTION_KEY: newKey, DATA_DIR: dataDir });
    expect(again.code, again.stderr).toBe(0);
    const nothing = { resealed: 0, skipped: 0, unreadable: 0 };
    expect(JSON.parse(again.stdout.trim().split('\n').pop()!)).toEqual({
      vault: { rewrapped: 0, skipped: 0 },
      embedKeyTokens: nothing,
      webhookHeaders: nothing,
      webhookSecrets: nothing,
      handoffKeys: nothing,
    });
    platform = await startEmbedded(dataDir, { ...env, SECRETS_ENCRYPTION_KEY: newKey });
    // Four stops, four starts of the embedded platform and two runs of the command: each start
    // took up to 30 s on a loaded 2-core CI machine.
  }, 360_000);

  it('fails cleanly where the key changed without the command: a failed delivery attempt, SECRET_UNREADABLE answers', async () => {
    await platform.stop();
    // A third key, and neither of the ones the values were sealed with.
    platform = await startEmbedded(dataDir, { ...env, SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    // The test trigger: one failed attempt naming the cause, nothing sent.
    const received = receiver.received.length;
    const triggered = await trigger();
    expect(triggered.status, triggered.text).toBe(200);
    expect(triggered.body.outcomes[0]).toMatchObject({ ok: false, failure: 'secret' });
    expect(triggered.body.outcomes[0].message).toContain('SECRETS_ENCRYPTION_KEY');
    // A real delivery: a failed attempt, then the retry schedule (never stuck in `delivering`).
    const fragment = await call(platform.url, owner.token, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: noteTypeId,
      title: 'Under a lost key',
      content: 'Not deliverable',
    });
    expect(fragment.status, fragment.text).toBe(201);
    const delivery = await waitFor('the failed attempt', async () => {
      const list = await call(
        platform.url,
        owner.token,
        'GET',
        `/api/workspaces/${ws}/webhooks/${webhookId}/deliveries?limit=10`,
      );
      return list.body.items.find((d: any) => !d.test && d.attempts >= 1 && d.lastFailure === 'secret');
    });
    expect(delivery.status).toBe('pending');
    expect(receiver.received.length).toBe(received);
    const hook = await call(platform.url, owner.token, 'GET', `/api/workspaces/${ws}/webhooks/${webhookId}`);
    // The failing clock runs, as for any failed delivery (the endpoint is disabled once it ran out).
    expect(hook.body.webhook.failingSince).not.toBeNull();

    // The owner repairs the endpoint: a new secret, the header's value sent again (the mask
    // stands for nothing that no longer opens).
    const masked = await call(platform.url, owner.token, 'PATCH', `/api/workspaces/${ws}/webhooks/${webhookId}`, {
      headers: { 'X-Receiver-Token': '********' },
    });
    expect(masked.status, masked.text).toBe(400);
    const patched = await call(platform.url, owner.token, 'PATCH', `/api/workspaces/${ws}/webhooks/${webhookId}`, {
      headers: { 'X-Receiver-Token': 'receiver-token-2' },
    });
    expect(patched.status, patched.text).toBe(200);
    const rotated = await call(
      platform.url,
      owner.token,
      'POST',
      `/api/workspaces/${ws}/webhooks/${webhookId}/rotate-secret`,
      {},
    );
    expect(rotated.status, rotated.text).toBe(200);
    const repaired = await trigger();
    expect(repaired.body.outcomes[0], repaired.text).toMatchObject({ ok: true });
    const last = receiver.at('/rotated').at(-1)!;
    expect(last.headers['x-receiver-token']).toBe('receiver-token-2');
    expect(() =>
      new Webhook(rotated.body.secret).verify(last.body, last.headers as Record<string, string>),
    ).not.toThrow();

    // The embed key whose scoped token does not open.
    const chat = await embedChat();
    expect(chat.status).toBe(500);
    expect(await chat.json()).toMatchObject({ code: 'SECRET_UNREADABLE' });
    // The user's own provider key: never the operator's instead.
    const byok = await call(platform.url, owner.token, 'POST', '/api/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(byok.status).toBe(500);
    expect(byok.body.error).toMatchObject({ code: 'secret_unreadable' });
    expect(byok.body.error.message).toContain('openai');
    // The handoff key: a new one signs, the unreadable one stays published for its tokens.
    const kids = await jwksKids();
    expect(kids).toHaveLength(2);
    expect(kids[1]).toBe(handoffKid);
  }, 180_000);
});
