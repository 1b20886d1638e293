import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, createToken, signIn, userWithToken } from '../../support/accounts.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

/** What is stored of secrets, read straight from the tables (a real PostgreSQL). */
describeWith(['postgres'], 'identity storage in PostgreSQL', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-identity-pg-');
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: PlatformProcess;
  let db: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase('kw_identity');
    platform = await startEmbedded(dataDir, { DATABASE_URL: database.url, ...admin });
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await platform?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores only the SHA-256 of a token and its display prefix, never the secret', async () => {
    const { token: manager } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const { id, token } = await createToken(platform.url, manager, { name: 'stored', scopes: ['profile:read'] });
    const { rows } = await db.query('SELECT * FROM control.personal_access_tokens WHERE id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(sha256(token));
    expect(rows[0].display_prefix).toBe(token.slice(0, 12));
    const secretPart = token.slice(12);
    const { rows: all } = await db.query('SELECT * FROM control.personal_access_tokens');
    expect(JSON.stringify(all)).not.toContain(secretPart);
    expect(JSON.stringify(all)).not.toContain(admin.ADMIN_TOKEN.slice(12));
    const bootstrap = all.find((r) => r.token_hash === sha256(admin.ADMIN_TOKEN));
    expect(bootstrap).toMatchObject({ scopes: ['*'], all_workspaces: true });
  });

  it('stores scrypt password hashes and only hashes of session and CSRF values', async () => {
    const { user } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const session = await signIn(platform.url, user.email, user.password);
    const { rows: users } = await db.query('SELECT password_hash FROM control.users WHERE id = $1', [user.id]);
    expect(users[0].password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(users[0].password_hash).not.toContain(user.password);
    const cookie = /kw_session=([^;]+)/.exec(session.cookie)![1];
    const { rows: sessions } = await db.query(
      'SELECT token_hash, csrf_token_hash FROM control.sessions WHERE user_id = $1',
      [user.id],
    );
    expect(sessions).toContainEqual({
      token_hash: sha256(decodeURIComponent(cookie)),
      csrf_token_hash: sha256(session.csrf),
    });
    expect(JSON.stringify(sessions)).not.toContain(session.csrf);
  });

  it('counts token use per UTC day in token_usage_daily', async () => {
    const { token, tokenId } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${platform.url}/api/profile`, { headers: { authorization: `Bearer ${token}` } }),
      ),
    );
    // Uses are written in batches, about a second after they happen (TokenUsageRecorder).
    const expected = [{ day: new Date().toISOString().slice(0, 10), requests: 5 }];
    let rows: unknown[] = [];
    for (let i = 0; i < 50 && JSON.stringify(rows) !== JSON.stringify(expected); i++) {
      await new Promise((r) => setTimeout(r, 100));
      ({ rows } = await db.query(
        "SELECT to_char(day, 'YYYY-MM-DD') AS day, requests FROM control.token_usage_daily WHERE token_id = $1",
        [tokenId],
      ));
    }
    expect(rows).toEqual(expected);
  });
});

describeWith(['postgres'], 'bootstrap concurrency', () => {
  it('two processes starting together on an empty database create exactly one administrator', async () => {
    const database = await createTestDatabase('kw_bootstrap');
    const dirs = [tempDir('kw-boot-a-'), tempDir('kw-boot-b-')];
    const admin = adminEnv();
    const started: PlatformProcess[] = [];
    try {
      started.push(
        ...(await Promise.all(dirs.map((dir) => startEmbedded(dir, { DATABASE_URL: database.url, ...admin })))),
      );
      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      try {
        expect((await db.query('SELECT count(*)::int AS n FROM control.users')).rows[0].n).toBe(1);
        expect((await db.query('SELECT count(*)::int AS n FROM control.personal_access_tokens')).rows[0].n).toBe(1);
      } finally {
        await db.end();
      }
      for (const p of started)
        expect(
          (await fetch(`${p.url}/api/profile`, { headers: { authorization: `Bearer ${admin.ADMIN_TOKEN}` } })).status,
        ).toBe(200);
    } finally {
      await Promise.all(started.map((p) => p.stop()));
      await database.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
