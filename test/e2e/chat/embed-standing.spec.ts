import { rmSync } from 'node:fs';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createToken, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import {
  scriptedProviders,
  startScriptedModel,
  type ScriptedModel,
} from '../../support/stand-ins/scripted-model-stand-in.js';
import { call } from './chat-fixture.js';

const SECRET = 'SECRET-alice-CONTENT: the launch is on the 3rd';
const SITE = 'https://site.example';
const ISSUER = 'https://idp.site.example';
const AUDIENCE = 'kw-embed';

type Person = Awaited<ReturnType<typeof userWithToken>>;

/**
 * An embed configuration lends its creator's access (docs/chat.md#embed-chat), and a trusted
 * issuer lets the creator's JWTs name any account: the black-box security test found a viewer
 * setting an issuer of their own and chatting as the workspace's owner, still after being
 * removed, after their account was disabled, and after a public workspace went private; and a
 * viewer publishing a private workspace through a public key its owner could not find. Over real
 * HTTP, with a scripted model that calls the read tools: each way in is refused, the owner finds
 * and stops what members published, and an owner's configuration keeps serving its members.
 */
describe('embed configurations act only while their creator stands (/api/v2/embed)', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-embed-standing-');
  let platform: PlatformProcess;
  let model: ScriptedModel;
  let base: string;
  let alice: Person; // owner of the workspace
  let carol: Person; // collaborator (promoted to owner where a test needs one)
  let dave: Person; // contributor
  let erin: Person; // viewer
  let bob: Person; // another tenant
  let ws: string;
  let fragmentId: string;
  let issuerKey: CryptoKey;
  let jwk: JWK;
  const api = (person: Person | string, method: string, path: string, body?: unknown) =>
    call(base, typeof person === 'string' ? person : person.token, method, path, body);
  const trustedIssuer = () => ({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk] } });

  const jwtFor = (email: string) =>
    new SignJWT({ email, email_verified: true })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('10m')
      .sign(issuerKey);

  async function join(workspaceId: string, person: Person, role: string) {
    const invited = await api(alice, 'POST', `/api/workspaces/${workspaceId}/members`, {
      email: person.user.email,
      role,
    });
    expect(invited.status, invited.text).toBe(201);
    const accepted = await api(person, 'POST', `/api/invitations/${invited.body.invitation.id}/accept`);
    expect(accepted.status, accepted.text).toBe(200);
  }
  const setRole = async (person: Person, role: string) =>
    expect((await api(alice, 'PATCH', `/api/workspaces/${ws}/members/${person.user.id}`, { role })).status).toBe(200);

  /** A configuration and a key of `creator`'s; the issuer when they may set it. */
  async function configOf(
    creator: Person,
    options: { workspaceId?: string; issuer?: boolean; key?: Record<string, unknown> } = {},
  ) {
    const config = await api(creator, 'POST', '/api/v2/configs', {
      workspaceId: options.workspaceId ?? ws,
      name: `by ${creator.user.email}`,
      ...(options.issuer === false ? {} : { trustedIssuer: trustedIssuer() }),
    });
    expect(config.status, config.text).toBe(201);
    const key = await api(creator, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
      label: 'site',
      allowedDomains: [SITE],
      ...options.key,
    });
    expect(key.status, key.text).toBe(201);
    return { configId: config.body.config.id as string, keyId: key.body.key.id as string, key: key.body.token };
  }

  /**
   * One turn asking for the secret fragment, as a host page sends it (a JWT naming `email`, or
   * none), scripted to go through: a turn expected to be refused is sent with `turn`, which
   * scripts nothing (a refused turn would leave its answers queued for the next one).
   */
  async function readSecret(key: string, options: { email?: string; origin?: string } = {}) {
    model.script({ toolCalls: [{ name: 'get_fragment', arguments: { fragmentId } }] }, (request) => ({
      text: String([...request.messages].reverse().find((m) => m.role === 'tool')!.content),
    }));
    return turn(key, options);
  }

  async function turn(key: string, options: { email?: string; origin?: string; method?: string } = {}) {
    const preflight = options.method === 'OPTIONS';
    const res = await fetch(`${base}/api/v2/embed/chat?key=${encodeURIComponent(key)}`, {
      method: options.method ?? 'POST',
      headers: {
        origin: options.origin ?? SITE,
        ...(preflight
          ? { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' }
          : { 'content-type': 'application/json' }),
        ...(options.email ? { authorization: `Bearer ${await jwtFor(options.email)}` } : {}),
      },
      body: preflight ? undefined : JSON.stringify({ messages: [{ role: 'user', content: 'go' }] }),
    });
    const text = await res.text();
    const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    return { status: res.status, text, json: !stream && text ? JSON.parse(text) : undefined };
  }

  /** What the model was given as tool results: the content of the fragment, or nothing. */
  const readsSecret = (res: { status: number; text: string }) =>
    res.status === 200 && res.text.includes('SECRET-alice');

  beforeAll(async () => {
    model = await startScriptedModel(['scripted-1']);
    platform = await startEmbedded(dataDir, {
      ...admin,
      CHAT_PROVIDERS: scriptedProviders(model),
    });
    base = platform.url;
    // One at a time: each sign-in hashes a password, and the machine is shared.
    const people: Person[] = [];
    for (let i = 0; i < 5; i++) people.push(await userWithToken(base, admin.ADMIN_TOKEN));
    [alice, carol, dave, erin, bob] = people;
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    issuerKey = privateKey;
    jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    ws = (await api(alice, 'POST', '/api/workspaces', { name: 'Alice WS' })).body.workspace.id;
    const typeId = (await api(alice, 'GET', `/api/workspaces/${ws}/fragment-types`)).body.items[0].id;
    const fragment = await api(alice, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: typeId,
      title: 'alice secret',
      content: SECRET,
    });
    expect(fragment.status, fragment.text).toBe(201);
    fragmentId = fragment.body.fragment.id;
    await join(ws, carol, 'collaborator');
    await join(ws, dave, 'contributor');
    await join(ws, erin, 'viewer');
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves an owner's configuration to a member its JWT names, with that member's read access", async () => {
    const { key } = await configOf(alice);
    expect(readsSecret(await readSecret(key, { email: erin.user.email }))).toBe(true);
    expect(readsSecret(await readSecret(key, { email: alice.user.email }))).toBe(true);
  });

  it('lets only a member who manages the workspace set a trusted issuer: viewers, contributors, collaborators and outsiders get 403', async () => {
    const publicWs = (await api(carol, 'POST', '/api/workspaces', { name: 'Carol public', visibility: 'public' })).body
      .workspace.id;
    const attempts: Array<[Person, string]> = [
      [erin, ws],
      [dave, ws],
      [carol, ws],
      [bob, publicWs],
    ];
    for (const [person, workspaceId] of attempts) {
      const created = await api(person, 'POST', '/api/v2/configs', {
        workspaceId,
        name: 'own idp',
        trustedIssuer: trustedIssuer(),
      });
      expect(created.status, created.text).toBe(403);
      expect(created.body).toMatchObject({ code: 'FORBIDDEN' });
      // Nothing stored; a configuration without an issuer is still theirs to make, but not to arm.
      const plain = await api(person, 'POST', '/api/v2/configs', { workspaceId, name: 'plain' });
      expect(plain.status, plain.text).toBe(201);
      const armed = await api(person, 'PATCH', `/api/v2/configs/${plain.body.config.id}`, {
        trustedIssuer: trustedIssuer(),
      });
      expect(armed.status, armed.text).toBe(403);
      expect(
        (await api(person, 'GET', `/api/v2/configs/${plain.body.config.id}`)).body.config.trustedIssuer,
      ).toBeNull();
      expect(
        (await api(person, 'GET', `/api/v2/configs?workspaceId=${workspaceId}`)).body.configs.map(
          (c: { name: string }) => c.name,
        ),
      ).not.toContain('own idp');
    }
  });

  it('refuses a JWT naming an account that cannot read the workspace, or a disabled one, like an unknown email', async () => {
    const { key } = await configOf(alice);
    const unknown = await turn(key, { email: 'nobody@nowhere.test' });
    expect(unknown.status, unknown.text).toBe(401);
    const outsider = await turn(key, { email: bob.user.email });
    expect(outsider.status, outsider.text).toBe(401);
    expect(outsider.json).toEqual(unknown.json);

    const disabled = await userWithToken(base, admin.ADMIN_TOKEN);
    await join(ws, disabled, 'viewer');
    expect(
      (await api(admin.ADMIN_TOKEN, 'PATCH', `/api/admin/users/${disabled.user.id}`, { status: 'disabled' })).status,
    ).toBe(200);
    const off = await turn(key, { email: disabled.user.email });
    expect(off.status, off.text).toBe(401);
    expect(off.json).toEqual(unknown.json);
    expect(unknown.json.code).toBe('UNAUTHENTICATED');
  });

  it("names only members on a public workspace: another account's JWT is refused like an unknown email and spends nothing of theirs", async () => {
    const publicWs = (await api(alice, 'POST', '/api/workspaces', { name: 'Alice open', visibility: 'public' })).body
      .workspace.id;
    const typeId = (await api(alice, 'GET', `/api/workspaces/${publicWs}/fragment-types`)).body.items[0].id;
    const note = await api(alice, 'POST', '/api/memory-fragments', {
      workspaceId: publicWs,
      fragmentTypeId: typeId,
      title: 'open note',
      content: 'OPEN-NOTE for everyone',
    });
    expect(note.status, note.text).toBe(201);
    const { key } = await configOf(alice, { workspaceId: publicWs });
    const tokensOf = async (person: Person) => (await api(person, 'GET', '/api/subscription')).body.usage.tokens;

    // Bob reads the public workspace but never joined it: the owner's JWT cannot chat as him.
    const bobTokens = await tokensOf(bob);
    const before = model.chatRequests().length;
    const unknown = await turn(key, { email: 'nobody@nowhere.test' });
    expect(unknown.status, unknown.text).toBe(401);
    const stranger = await turn(key, { email: bob.user.email });
    expect(stranger.status, stranger.text).toBe(401);
    expect(stranger.json).toEqual(unknown.json);
    expect(stranger.json.code).toBe('UNAUTHENTICATED');
    expect(model.chatRequests()).toHaveLength(before);

    // A member in any role (a viewer) is named, and chats as themselves...
    const viewer = await userWithToken(base, admin.ADMIN_TOKEN);
    await join(publicWs, viewer, 'viewer');
    model.script({ toolCalls: [{ name: 'get_fragment', arguments: { fragmentId: note.body.fragment.id } }] }, (r) => ({
      text: String([...r.messages].reverse().find((m) => m.role === 'tool')!.content),
    }));
    const member = await turn(key, { email: viewer.user.email });
    expect(member.status, member.text).toBe(200);
    expect(member.text).toContain('OPEN-NOTE');
    await expect.poll(() => tokensOf(viewer), { timeout: 10_000 }).toBeGreaterThan(0);
    // Usage is sent in batches, the earlier ones first: by now Bob's would be in, had he chatted.
    expect(await tokensOf(bob)).toBe(bobTokens);

    // ...until removed: the next turn is refused the same way, though they still read the workspace.
    expect((await api(alice, 'DELETE', `/api/workspaces/${publicWs}/members/${viewer.user.id}`)).status).toBe(204);
    const removed = await turn(key, { email: viewer.user.email });
    expect(removed.status, removed.text).toBe(401);
    expect(removed.json).toEqual(unknown.json);
  });

  it('stops a configuration the moment its creator is removed from the workspace: the key answers like an unknown one', async () => {
    await setRole(carol, 'owner');
    const { key } = await configOf(carol);
    expect(readsSecret(await readSecret(key, { email: alice.user.email }))).toBe(true);
    expect((await api(alice, 'DELETE', `/api/workspaces/${ws}/members/${carol.user.id}`)).status).toBe(204);

    const before = model.chatRequests().length;
    for (const email of [alice.user.email, erin.user.email]) {
      const res = await turn(key, { email });
      expect(res.status, res.text).toBe(401);
      expect(res.json.code).toBe('EMBED_KEY_INVALID');
    }
    expect((await turn(key, { method: 'OPTIONS' })).status).toBe(401);
    expect(model.chatRequests()).toHaveLength(before);
    await join(ws, carol, 'collaborator');
  });

  it("stops a configuration while its creator's account is disabled", async () => {
    await setRole(dave, 'owner');
    const { key } = await configOf(dave);
    expect(readsSecret(await readSecret(key, { email: alice.user.email }))).toBe(true);
    expect(
      (await api(admin.ADMIN_TOKEN, 'PATCH', `/api/admin/users/${dave.user.id}`, { status: 'disabled' })).status,
    ).toBe(200);
    const res = await turn(key, { email: alice.user.email });
    expect(res.status, res.text).toBe(401);
    expect(res.json.code).toBe('EMBED_KEY_INVALID');
    // Enabled again, the configuration works again: it stands on the account as it is now.
    expect(
      (await api(admin.ADMIN_TOKEN, 'PATCH', `/api/admin/users/${dave.user.id}`, { status: 'active' })).status,
    ).toBe(200);
    expect(readsSecret(await readSecret(key, { email: alice.user.email }))).toBe(true);
    await setRole(dave, 'contributor');
  });

  it("stops a non-member's configuration over a public workspace when it goes private", async () => {
    const publicWs = (await api(alice, 'POST', '/api/workspaces', { name: 'Alice public', visibility: 'public' })).body
      .workspace.id;
    const typeId = (await api(alice, 'GET', `/api/workspaces/${publicWs}/fragment-types`)).body.items[0].id;
    const published = await api(alice, 'POST', '/api/memory-fragments', {
      workspaceId: publicWs,
      fragmentTypeId: typeId,
      title: 'public note',
      content: 'PUBLIC-NOTE',
    });
    expect(published.status).toBe(201);
    // Bob reads the public workspace, so a key of his own (his scoped token, his origins) works...
    const scoped = await createToken(base, bob.token, { name: 'bob kiosk' });
    const { key } = await configOf(bob, { workspaceId: publicWs, issuer: false, key: { scopedToken: scoped.token } });
    model.script(
      { toolCalls: [{ name: 'get_fragment', arguments: { fragmentId: published.body.fragment.id } }] },
      {
        text: 'ok',
      },
    );
    const open = await turn(key);
    expect(open.status, open.text).toBe(200);
    expect(open.text).toContain('"status":"ok"');
    // ...until it is private.
    expect((await api(alice, 'PATCH', `/api/workspaces/${publicWs}`, { visibility: 'private' })).status).toBe(200);
    const closed = await turn(key);
    expect(closed.status, closed.text).toBe(401);
    expect(closed.json.code).toBe('EMBED_KEY_INVALID');
  });

  it("stops a demoted creator's trusted issuer and public key; their own origin-bound key keeps working", async () => {
    await setRole(carol, 'owner');
    const { configId, key } = await configOf(carol);
    const publicKey = await api(carol, 'POST', `/api/v2/configs/${configId}/keys`, { label: 'pub', public: true });
    expect(publicKey.status, publicKey.text).toBe(201);
    const scoped = await createToken(base, carol.token, { name: 'carol kiosk' });
    const own = await api(carol, 'POST', `/api/v2/configs/${configId}/keys`, {
      label: 'kiosk',
      allowedDomains: [SITE],
      scopedToken: scoped.token,
    });
    expect(own.status, own.text).toBe(201);
    expect(readsSecret(await readSecret(key, { email: alice.user.email }))).toBe(true);
    const anyone = { email: alice.user.email, origin: 'https://anyone.example' };
    expect(readsSecret(await readSecret(publicKey.body.token, anyone))).toBe(true);

    await setRole(carol, 'collaborator');
    const jwtTurn = await turn(key, { email: alice.user.email });
    expect(jwtTurn.status, jwtTurn.text).toBe(401);
    expect(jwtTurn.json).toMatchObject({ code: 'UNAUTHENTICATED', error: expect.stringContaining('not in force') });
    const published = await turn(publicKey.body.token, anyone);
    expect(published.status, published.text).toBe(401);
    expect(published.json.code).toBe('EMBED_KEY_INVALID');
    // As herself, through her own token and origins, she still reads what she may read.
    expect(readsSecret(await readSecret(own.body.token))).toBe(true);
  });

  it('ends a turn at its next tool call once the creator is removed, before the tool runs', async () => {
    await setRole(carol, 'owner');
    const { key } = await configOf(carol);
    const read = { toolCalls: [{ name: 'get_fragment', arguments: { fragmentId } }] };
    model.script(read, async () => {
      expect((await api(alice, 'DELETE', `/api/workspaces/${ws}/members/${carol.user.id}`)).status).toBe(204);
      return read;
    });
    const before = model.chatRequests().length;
    const res = await turn(key, { email: alice.user.email });
    expect(res.status).toBe(200);
    const events = res.text.split('\n\n').filter((b) => b.startsWith('event:'));
    expect(events.filter((e) => e.includes('"status":"ok"'))).toHaveLength(1);
    expect(events.at(-1)).toContain('event: error');
    expect(events.at(-1)).toContain('EMBED_KEY_INVALID');
    expect(model.chatRequests()).toHaveLength(before + 2);
    await join(ws, carol, 'collaborator');
  });

  describe('keys a member publishes', () => {
    it('lets only a member who manages the workspace make a key public; others keep origin-bound keys as themselves', async () => {
      for (const person of [erin, dave]) {
        const config = await api(person, 'POST', '/api/v2/configs', { workspaceId: ws, name: 'mirror' });
        expect(config.status, config.text).toBe(201);
        const configId = config.body.config.id;
        const publicKey = await api(person, 'POST', `/api/v2/configs/${configId}/keys`, {
          label: 'pub',
          public: true,
          scopedToken: person.token,
        });
        expect(publicKey.status, publicKey.text).toBe(403);
        expect(publicKey.body).toMatchObject({ code: 'FORBIDDEN' });
        expect((await api(person, 'GET', `/api/v2/configs/${configId}/keys`)).body.keys).toEqual([]);
        const own = await api(person, 'POST', `/api/v2/configs/${configId}/keys`, {
          label: 'mine',
          allowedDomains: [SITE],
          scopedToken: person.token,
        });
        expect(own.status, own.text).toBe(201);
        const made = await api(person, 'PATCH', `/api/v2/configs/${configId}/keys/${own.body.key.id}`, {
          public: true,
        });
        expect(made.status, made.text).toBe(403);
        expect(readsSecret(await readSecret(own.body.token))).toBe(true);
        expect((await turn(own.body.token, { origin: 'https://anyone.example' })).status).toBe(403);
      }
    });

    it("lets the workspace's owner list every creator's configurations over it, and archive them or revoke their keys", async () => {
      const config = await api(erin, 'POST', '/api/v2/configs', { workspaceId: ws, name: 'erin mirror' });
      const configId = config.body.config.id;
      const own = await api(erin, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'a',
        allowedDomains: [SITE],
        scopedToken: erin.token,
      });
      const second = await api(erin, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'b',
        allowedDomains: [SITE],
        scopedToken: erin.token,
      });

      // Her own listing shows only hers; with allCreators, the owner sees erin's.
      const mine = await api(alice, 'GET', `/api/v2/configs?workspaceId=${ws}`);
      expect(mine.body.configs.map((c: { id: string }) => c.id)).not.toContain(configId);
      const all = await api(alice, 'GET', `/api/v2/configs?workspaceId=${ws}&allCreators=true`);
      expect(all.status, all.text).toBe(200);
      expect(all.body.configs).toContainEqual(
        expect.objectContaining({ id: configId, name: 'erin mirror', createdBy: erin.user.id }),
      );
      // Not for other members (403), nor outsiders (the workspace's 404), nor without a workspace.
      expect((await api(carol, 'GET', `/api/v2/configs?workspaceId=${ws}&allCreators=true`)).status).toBe(403);
      const outsider = await api(bob, 'GET', `/api/v2/configs?workspaceId=${ws}&allCreators=true`);
      expect(outsider.status).toBe(404);
      expect(outsider.body).toEqual({ error: 'Workspace not found', code: 'NOT_FOUND' });
      expect((await api(alice, 'GET', '/api/v2/configs?allCreators=true')).status).toBe(400);

      // The owner reads it and its keys, revokes one, and archives the configuration; changing it stays erin's.
      expect((await api(alice, 'GET', `/api/v2/configs/${configId}`)).status).toBe(200);
      const keys = await api(alice, 'GET', `/api/v2/configs/${configId}/keys`);
      expect(keys.body.keys.map((k: { label: string }) => k.label)).toEqual(['a', 'b']);
      expect((await api(alice, 'PATCH', `/api/v2/configs/${configId}`, { name: 'hijacked' })).status).toBe(404);
      expect((await api(carol, 'GET', `/api/v2/configs/${configId}`)).status).toBe(404);
      expect((await api(carol, 'DELETE', `/api/v2/configs/${configId}`)).status).toBe(404);

      expect((await api(alice, 'DELETE', `/api/v2/configs/${configId}/keys/${own.body.key.id}`)).status).toBe(204);
      const revoked = await turn(own.body.token);
      expect(revoked.status).toBe(401);
      expect(revoked.json.code).toBe('EMBED_KEY_INVALID');
      model.script({ text: 'still on' });
      expect((await turn(second.body.token)).status).toBe(200);
      expect((await api(alice, 'DELETE', `/api/v2/configs/${configId}`)).status).toBe(204);
      expect((await turn(second.body.token)).status).toBe(401);
      expect((await api(erin, 'GET', `/api/v2/configs/${configId}`)).body.config.status).toBe('archived');
    });
  });
});
