import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../support/accounts.js';
import { call, startChatPlatform } from './chat-fixture.js';

const JWKS = {
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    },
  ],
};

/**
 * Embed configurations and their domain-scoped keys through REST: what a configuration carries,
 * the references it checks (model, expert, workspace, issuer), filters and paging, keys whose
 * token is shown once, the allowed-origins rule, a scoped token that must be the creator's own,
 * revocation and archiving, and other users' configurations answering 404 like unknown ids.
 */
describe('embed configurations and keys (/api/v2/configs)', () => {
  let p: Awaited<ReturnType<typeof startChatPlatform>>;
  let owner: { token: string; user: { id: string; email: string; password: string } };
  let stranger: { token: string };
  let ws: string;
  let expertId: string;
  let configId: string;
  const api = (token: string, method: string, path: string, body?: unknown) => call(p.base, token, method, path, body);

  beforeAll(async () => {
    p = await startChatPlatform();
    owner = await p.person();
    stranger = await p.person();
    ws = (await api(owner.token, 'POST', '/api/workspaces', { name: 'site' })).body.workspace.id;
    expertId = (await api(owner.token, 'POST', '/api/v2/experts', { name: 'main', workspaceId: ws })).body.expert.id;
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  it('creates a configuration with everything it carries, and reads it back', async () => {
    const res = await api(owner.token, 'POST', '/api/v2/configs', {
      workspaceId: ws,
      name: 'Docs assistant',
      model: 'gpt-4o',
      modelLocked: true,
      features: {
        feedbackMode: 'fragment-feedback',
        structuredQuestions: true,
        workspaceFiles: { exposeToParent: true },
      },
      mainExpertId: expertId,
      stateless: true,
      systemPrompt: 'Be helpful.',
      defaultContext: [{ contextType: 'collection', contextId: '11111111-1111-4111-8111-111111111111' }],
      trustedIssuer: { issuer: 'https://idp.example', audience: 'kw-embed', jwks: JWKS },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.config).toMatchObject({
      workspaceId: ws,
      name: 'Docs assistant',
      status: 'active',
      model: 'gpt-4o',
      modelLocked: true,
      features: {
        feedbackMode: 'fragment-feedback',
        structuredQuestions: true,
        webSearch: false,
        workspaceFiles: { exposeToParent: true },
      },
      mainExpertId: expertId,
      stateless: true,
      systemPrompt: 'Be helpful.',
      defaultContext: [{ contextType: 'collection', contextId: '11111111-1111-4111-8111-111111111111' }],
      trustedIssuer: { issuer: 'https://idp.example', audience: 'kw-embed', jwks: JWKS },
      createdBy: owner.user.id,
    });
    configId = res.body.config.id;
    expect((await api(owner.token, 'GET', `/api/v2/configs/${configId}`)).body).toEqual(res.body);
  });

  it.each([
    [{ model: 'no-such-model' }, 'model', 400],
    [{ features: { feedbackMode: 'loud' } }, 'features.feedbackMode', 400],
    [{ mainExpertId: '00000000-0000-4000-8000-000000000000' }, 'mainExpertId', 400],
    [{ trustedIssuer: { issuer: 'https://idp.example', audience: 'a' } }, 'trustedIssuer.jwksUrl', 400],
    [
      { trustedIssuer: { issuer: 'https://idp.example', audience: 'a', jwks: { keys: [] } } },
      'trustedIssuer.jwks',
      400,
    ],
    [
      { defaultContext: [{ contextType: 'url', contextId: '11111111-1111-4111-8111-111111111111' }] },
      'defaultContext.0.contextType',
      400,
    ],
  ])('refuses %j naming %s, storing nothing', async (change, field, status) => {
    const before = (await api(owner.token, 'GET', '/api/v2/configs')).body.totalCount;
    const res = await api(owner.token, 'POST', '/api/v2/configs', { workspaceId: ws, name: 'x', ...change });
    expect(res.status, res.text).toBe(status);
    expect(JSON.stringify(res.body.fields ?? [])).toContain(field);
    expect((await api(owner.token, 'GET', '/api/v2/configs')).body.totalCount).toBe(before);
  });

  it.each([
    'http://idp.example/jwks',
    'https://127.0.0.1:8443/internal-admin/jwks',
    'https://169.254.169.254/latest/meta-data/',
    'https://localhost:8443/jwks',
    'https://[::1]/jwks',
    'https://10.0.0.5/jwks',
    'https://user:secret@idp.example/jwks',
  ])('refuses the JWKS URL %s when saved, on create and on update', async (jwksUrl) => {
    const trustedIssuer = { issuer: 'https://idp.example', audience: 'a', jwksUrl };
    const created = await api(owner.token, 'POST', '/api/v2/configs', { workspaceId: ws, name: 'x', trustedIssuer });
    expect(created.status, created.text).toBe(400);
    expect(created.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      fields: [{ field: 'trustedIssuer.jwksUrl', problems: [expect.stringContaining('public https URL')] }],
    });
    const updated = await api(owner.token, 'PATCH', `/api/v2/configs/${configId}`, { trustedIssuer });
    expect(updated.status, updated.text).toBe(400);
    expect(updated.body.fields[0].field).toBe('trustedIssuer.jwksUrl');
  });

  it('fetches a JWKS URL only when its name resolves to public addresses: a name of this machine is refused at use', async () => {
    // A host name that is no literal address and not localhost, so it passes the check at save
    // time, but resolves to this machine (loopback or a private address).
    const name = hostname();
    const { address } = await lookup(name);
    expect(address, `${name} must resolve to this machine for this test`).toMatch(
      /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|f[cd])/,
    );
    let connections = 0;
    const jwksServer = createServer();
    jwksServer.on('connection', (socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, address, resolve));
    try {
      const jwksUrl = `https://${name}:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
      // A user of its own: the listings the other tests count stay as they are.
      const author = await p.person();
      const authorWs = (await api(author.token, 'POST', '/api/workspaces', { name: 'internal' })).body.workspace.id;
      const config = await api(author.token, 'POST', '/api/v2/configs', {
        workspaceId: authorWs,
        name: 'internal keys',
        trustedIssuer: { issuer: 'https://idp.example', audience: 'kw-embed', jwksUrl },
      });
      expect(config.status, config.text).toBe(201);
      const site = 'https://shop.example';
      const key = await api(author.token, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
        label: 'site',
        allowedDomains: [site],
      });
      expect(key.status, key.text).toBe(201);
      const { privateKey } = await generateKeyPair('ES256');
      const jwt = await new SignJWT({ email: author.user.email })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer('https://idp.example')
        .setAudience('kw-embed')
        .setExpirationTime('5m')
        .sign(privateKey);
      const res = await fetch(`${p.base}/api/v2/embed/chat?key=${key.body.token}`, {
        method: 'POST',
        headers: { origin: site, authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await res.json()) as { code: string; error: string };
      expect(res.status).toBe(401);
      expect(body.error).toContain('key set could not be fetched');
      // Refused before connecting: the server on this machine never saw the platform.
      expect(connections).toBe(0);
    } finally {
      jwksServer.close();
    }
  });

  it('needs a workspace the creator can read, and an expert of theirs over it', async () => {
    const otherWs = (await api(stranger.token, 'POST', '/api/workspaces', { name: 'theirs' })).body.workspace.id;
    expect((await api(owner.token, 'POST', '/api/v2/configs', { workspaceId: otherWs, name: 'x' })).status).toBe(404);
    const theirExpert = (await api(stranger.token, 'POST', '/api/v2/experts', { name: 'e', workspaceId: otherWs })).body
      .expert.id;
    const res = await api(owner.token, 'POST', '/api/v2/configs', {
      workspaceId: ws,
      name: 'x',
      mainExpertId: theirExpert,
    });
    expect(res.status).toBe(400);
    expect(res.body.fields[0].field).toBe('mainExpertId');
  });

  it('updates the fields present and removes the trusted issuer with null', async () => {
    const res = await api(owner.token, 'PATCH', `/api/v2/configs/${configId}`, {
      modelLocked: false,
      features: { webSearch: true },
      trustedIssuer: null,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.config).toMatchObject({
      name: 'Docs assistant',
      modelLocked: false,
      features: { feedbackMode: 'off', webSearch: true, structuredQuestions: false },
      trustedIssuer: null,
      mainExpertId: expertId,
    });
  });

  describe('keys', () => {
    let keyId: string;
    let token: string;

    it('a non-public key needs at least one allowed origin', async () => {
      const res = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, { label: 'site' });
      expect(res.status).toBe(400);
      expect(res.body.fields[0].field).toBe('allowedDomains');
      const bad = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'site',
        allowedDomains: ['https://docs.example.com/path'],
      });
      expect(bad.status).toBe(400);
      // A wildcard would be stored and never match an Origin: refused like "*".
      for (const origin of ['https://*.example.com', 'https://docs.*', '*']) {
        const wildcard = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
          label: 'site',
          allowedDomains: ['https://docs.example.com', origin],
        });
        expect(wildcard.status, origin).toBe(400);
        expect(wildcard.body.fields[0].field).toBe('allowedDomains[1]');
      }
    });

    it('creates a key: the token once, metadata after', async () => {
      const res = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'docs site',
        allowedDomains: ['https://Docs.Example.com', 'http://localhost:5173'],
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
      expect(res.status, res.text).toBe(201);
      token = res.body.token;
      expect(token).toMatch(/^kwek_[A-Za-z0-9_-]{43}$/);
      expect(res.body.key).toMatchObject({
        configId,
        label: 'docs site',
        allowedDomains: ['https://docs.example.com', 'http://localhost:5173'],
        public: false,
        tokenPrefix: token.slice(0, 12),
        hasScopedToken: false,
        revokedAt: null,
      });
      keyId = res.body.key.id;
      const list = await api(owner.token, 'GET', `/api/v2/configs/${configId}/keys`);
      expect(list.body.keys).toHaveLength(1);
      expect(list.text).not.toContain(token);
      expect(list.text).not.toContain(token.slice(12));
    });

    it('a public key needs no origin; a scoped token must be a working PAT of the creator', async () => {
      const pub = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'anywhere',
        public: true,
      });
      expect(pub.status).toBe(201);
      const foreign = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'scoped',
        public: true,
        scopedToken: stranger.token,
      });
      expect(foreign.status).toBe(400);
      expect(foreign.body.fields[0].field).toBe('scopedToken');
      const { token: scoped } = await createToken(p.base, owner.token, {
        name: 'embed scope',
        scopes: ['search:read'],
      });
      const own = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'scoped',
        public: true,
        scopedToken: scoped,
      });
      expect(own.status, own.text).toBe(201);
      expect(own.body.key.hasScopedToken).toBe(true);
      expect(own.text).not.toContain(scoped);
    });

    it('updates a key, refusing to leave a non-public key without origins', async () => {
      const res = await api(owner.token, 'PATCH', `/api/v2/configs/${configId}/keys/${keyId}`, {
        label: 'docs',
        expiresAt: null,
      });
      expect(res.body.key).toMatchObject({ label: 'docs', expiresAt: null });
      const bare = await api(owner.token, 'PATCH', `/api/v2/configs/${configId}/keys/${keyId}`, { allowedDomains: [] });
      expect(bare.status).toBe(400);
      const past = await api(owner.token, 'PATCH', `/api/v2/configs/${configId}/keys/${keyId}`, {
        expiresAt: '2001-01-01T00:00:00.000Z',
      });
      expect(past.status).toBe(400);
    });

    it("answers other users' configurations and keys like unknown ids", async () => {
      const unknown = '00000000-0000-4000-8000-000000000000';
      for (const [method, path, body] of [
        ['GET', `/api/v2/configs/${configId}`, undefined],
        ['PATCH', `/api/v2/configs/${configId}`, { name: 'mine' }],
        ['DELETE', `/api/v2/configs/${configId}`, undefined],
        ['GET', `/api/v2/configs/${configId}/keys`, undefined],
        ['POST', `/api/v2/configs/${configId}/keys`, { label: 'x', public: true }],
        ['PATCH', `/api/v2/configs/${configId}/keys/${keyId}`, { label: 'x' }],
        ['DELETE', `/api/v2/configs/${configId}/keys/${keyId}`, undefined],
      ] as const) {
        const theirs = await api(stranger.token, method, path, body);
        const none = await api(stranger.token, method, path.replace(configId, unknown), body);
        expect(theirs.status, `${method} ${path}`).toBe(404);
        expect(theirs.text).toBe(none.text);
      }
      expect((await api(stranger.token, 'GET', '/api/v2/configs')).body.configs).toEqual([]);
    });

    it('revokes a key: it stays listed with revokedAt, and cannot be changed', async () => {
      expect((await api(owner.token, 'DELETE', `/api/v2/configs/${configId}/keys/${keyId}`)).status).toBe(204);
      const list = await api(owner.token, 'GET', `/api/v2/configs/${configId}/keys`);
      expect(list.body.keys.find((k: { id: string }) => k.id === keyId).revokedAt).toEqual(expect.any(String));
      expect(
        (await api(owner.token, 'PATCH', `/api/v2/configs/${configId}/keys/${keyId}`, { label: 'x' })).status,
      ).toBe(404);
      expect((await api(owner.token, 'DELETE', `/api/v2/configs/${configId}/keys/${keyId}`)).status).toBe(404);
    });
  });

  it('caps a configuration at 50 keys that are not revoked: revoking one makes room for another', async () => {
    // A user of its own: the listings the other tests count stay as they are.
    const author = await p.person();
    const authorWs = (await api(author.token, 'POST', '/api/workspaces', { name: 'keys' })).body.workspace.id;
    const config = (await api(author.token, 'POST', '/api/v2/configs', { workspaceId: authorWs, name: 'many keys' }))
      .body.config.id;
    const createKey = (label: string) =>
      api(author.token, 'POST', `/api/v2/configs/${config}/keys`, { label, public: true });
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const created = await createKey(`key ${i}`);
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.key.id);
    }
    const over = await createKey('one too many');
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('QUOTA_EXCEEDED');
    // Revoked keys stay listed and cannot be deleted, so they must not hold places.
    for (const id of ids.slice(0, 2)) {
      expect((await api(author.token, 'DELETE', `/api/v2/configs/${config}/keys/${id}`)).status).toBe(204);
    }
    expect((await createKey('rotated 1')).status).toBe(201);
    expect((await createKey('rotated 2')).status).toBe(201);
    expect((await createKey('still one too many')).status).toBe(409);
    const listed = (await api(author.token, 'GET', `/api/v2/configs/${config}/keys`)).body.keys;
    expect(listed).toHaveLength(52);
    expect(listed.filter((k: { revokedAt: string | null }) => k.revokedAt === null)).toHaveLength(50);
  });

  it('lists with filters and paging; archiving moves a configuration to status archived', async () => {
    const second = await api(owner.token, 'POST', '/api/v2/configs', { workspaceId: ws, name: 'second' });
    expect(second.status).toBe(201);
    const page = await api(owner.token, 'GET', '/api/v2/configs?limit=1&offset=1');
    expect(page.body).toMatchObject({ totalCount: 2, limit: 1, offset: 1 });
    expect(page.body.configs.map((c: { name: string }) => c.name)).toEqual(['second']);
    expect((await api(owner.token, 'DELETE', `/api/v2/configs/${second.body.config.id}`)).status).toBe(204);
    const active = await api(owner.token, 'GET', `/api/v2/configs?workspaceId=${ws}`);
    expect(active.body.configs.map((c: { name: string }) => c.name)).toEqual(['Docs assistant']);
    const archived = await api(owner.token, 'GET', '/api/v2/configs?status=archived');
    expect(archived.body.configs).toMatchObject([{ name: 'second', status: 'archived' }]);
    const keyOnArchived = await api(owner.token, 'POST', `/api/v2/configs/${second.body.config.id}/keys`, {
      label: 'x',
      public: true,
    });
    expect(keyOnArchived.status).toBe(409);
    expect((await api(owner.token, 'GET', '/api/v2/configs?status=deleted')).status).toBe(400);
  });

  it('needs the applications:manage scope', async () => {
    const { token } = await p.person({ scopes: ['fragments:read'] });
    expect((await api(token, 'GET', '/api/v2/configs')).status).toBe(403);
  });
});
