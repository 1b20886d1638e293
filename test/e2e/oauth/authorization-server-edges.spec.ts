import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createUser, signIn, type SessionAuth, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startIdentityProvider, type IdentityProvider } from '../../support/stand-ins/identity-provider-stand-in.js';

const REDIRECT = 'https://app.example.test/callback';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';

/**
 * The edges of the authorization server that a client, a browser or a caller's headers can
 * push on, over real HTTP against the embedded platform started without PUBLIC_URL (the
 * documented default): a parameter sent twice to the authorization endpoint (RFC 6749 §3.1),
 * input the edge refuses shown to a browser as the page, form-only token and revocation
 * endpoints, and an origin (issuer, ID-JAG and SET audience) that a caller's Host header
 * cannot choose.
 */
describe('authorization server edges', () => {
  const dataDir = tempDir('kw-oauth-edges-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let port: number;
  let owner: TestUser;
  let session: SessionAuth;
  let idp: IdentityProvider;
  let clientId: string;

  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

  /** The authorization URL with its parameters in order; a pair may repeat a name. */
  const authorizeUrl = (pairs: Array<[string, string]>) => {
    const url = new URL(`${base}/oauth2/authorize`);
    for (const [k, v] of pairs) url.searchParams.append(k, v);
    return url.href;
  };
  const goodPairs = (): Array<[string, string]> => [
    ['response_type', 'code'],
    ['client_id', clientId],
    ['redirect_uri', REDIRECT],
    ['state', 'st-1'],
    ['scope', 'workspaces:read'],
    ['code_challenge', challenge],
    ['code_challenge_method', 'S256'],
    ['resource', `${base}/api/mcp`],
  ];
  const signedIn = () => ({ cookie: session.cookie });

  /** A request with the Host header the caller chooses (fetch does not let one set it). */
  const withHost = (
    host: string,
    method: string,
    path: string,
    body?: { type: string; text: string },
  ): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        `${base}${path}`,
        { method, headers: { host, ...(body ? { 'content-type': body.type } : {}) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.end(body?.text);
    });

  beforeAll(async () => {
    idp = await startIdentityProvider();
    platform = await startEmbedded(dataDir, {
      ...admin,
      AGENT_TRUSTED_ISSUERS: JSON.stringify([idp.trusted]),
      AGENT_JWKS_ALLOW_PRIVATE: 'true',
      AUTH_FAILURES_PER_ADDRESS: '100000',
      RATE_LIMIT_PER_ADDRESS: '100000',
    });
    base = platform.url;
    port = Number(new URL(base).port);
    owner = await createUser(base, admin.ADMIN_TOKEN);
    session = await signIn(base, owner.email, owner.password);
    const created = await fetch(`${base}/api/applications`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Edges',
        clientType: 'public',
        redirectUris: [REDIRECT],
        scopes: ['workspaces:read', 'fragments:read'],
      }),
    });
    expect(created.status).toBe(201);
    clientId = ((await created.json()) as any).application.id;
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    await idp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a parameter sent twice to the authorization endpoint (RFC 6749 §3.1), never binding a token without its audience', async () => {
    // The request as sent once: the consent page, bound to /api/mcp.
    const once = await fetch(authorizeUrl(goodPairs()), { headers: signedIn(), redirect: 'manual' });
    expect(once.status).toBe(200);
    expect(await once.text()).toContain('"audience":"/api/mcp"');

    // Any of the client's other parameters twice (even with the same value): back to the client with
    // invalid_request, the state when it was sent once, and no consent page (nothing recorded).
    for (const name of ['resource', 'scope', 'response_type', 'code_challenge', 'code_challenge_method', 'state']) {
      const pairs = goodPairs();
      const value = pairs.find(([k]) => k === name)![1];
      for (const twice of [value, name === 'resource' ? base : `${value}x`]) {
        const res = await fetch(authorizeUrl([...pairs, [name, twice]]), { headers: signedIn(), redirect: 'manual' });
        expect({ name, twice, status: res.status }).toEqual({ name, twice, status: 302 });
        const back = new URL(res.headers.get('location')!);
        expect(back.origin + back.pathname).toBe(REDIRECT);
        expect({
          name,
          error: back.searchParams.get('error'),
          description: back.searchParams.get('error_description'),
          state: back.searchParams.getAll('state'),
          code: back.searchParams.get('code'),
        }).toEqual({
          name,
          error: 'invalid_request',
          description: `The parameter ${name} is sent more than once`,
          // Which of two states is the client's cannot be known: none goes back.
          state: name === 'state' ? [] : ['st-1'],
          code: null,
        });
      }
    }

    // client_id or redirect_uri twice: the client or where to send it is not known, so the page says
    // so and nothing is redirected.
    for (const [name, other] of [
      ['client_id', crypto.randomUUID()],
      ['redirect_uri', REDIRECT],
      ['redirect_uri', 'https://evil.example/cb'],
    ]) {
      const res = await fetch(authorizeUrl([...goodPairs(), [name, other]]), {
        headers: signedIn(),
        redirect: 'manual',
      });
      expect({ name, status: res.status, location: res.headers.get('location') }).toEqual({
        name,
        status: 400,
        location: null,
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain(`The parameter ${name} is sent more than once`);
    }
  });

  it('refuses a parameter too long to read instead of reading it as absent', async () => {
    // A resource past the limit must not become a request without an audience (the whole API).
    const long = `${base}/api/mcp/${'a'.repeat(2_100)}`;
    for (const [name, value] of [
      ['resource', long],
      ['scope', `workspaces:read ${'x'.repeat(2_100)}`],
    ]) {
      const pairs = goodPairs().filter(([k]) => k !== name);
      const res = await fetch(authorizeUrl([...pairs, [name, value]]), { headers: signedIn(), redirect: 'manual' });
      expect({ name, status: res.status }).toEqual({ name, status: 302 });
      const back = new URL(res.headers.get('location')!);
      expect([back.searchParams.get('error'), back.searchParams.get('error_description')]).toEqual([
        'invalid_request',
        `The parameter ${name} is longer than 2000 characters`,
      ]);
    }
    // A redirect URI past the limit is not read as absent (the registered one) either: the page.
    const longRedirect = await fetch(
      authorizeUrl([
        ...goodPairs().filter(([k]) => k !== 'redirect_uri'),
        ['redirect_uri', `${REDIRECT}?${'a'.repeat(2_100)}`],
      ]),
      { headers: signedIn(), redirect: 'manual' },
    );
    expect([longRedirect.status, longRedirect.headers.get('location')]).toEqual([400, null]);
  });

  it('shows the error page, never a JSON body, for a query the edge refuses (a NUL character)', async () => {
    const good = authorizeUrl(goodPairs());
    for (const query of ['&state=a%00b', '&x%00=1']) {
      const res = await fetch(good + query, { headers: signedIn(), redirect: 'manual' });
      expect({ query, status: res.status, location: res.headers.get('location') }).toEqual({
        query,
        status: 400,
        location: null,
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await res.text();
      expect(html).toContain('<title>Authorization failed</title>');
    }
  });

  it('answers the claim page as a page, never a JSON body, when the edge refuses its path', async () => {
    const cases: Array<[string, number]> = [
      ['/agent/claim/abc%00def', 400],
      [`/agent/claim/${'a'.repeat(600)}`, 414],
    ];
    for (const [path, status] of cases) {
      const res = await fetch(`${base}${path}`, { redirect: 'manual' });
      expect({ path: path.slice(0, 30), status: res.status }).toEqual({ path: path.slice(0, 30), status });
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.text()).toContain('<title>Approve an agent</title>');
    }
  });

  it('reads the token and revocation endpoints as forms only: JSON is 415 invalid_request and spends nothing', async () => {
    const assertion = await idp.idJag(base, { email: owner.email });
    const json = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: JWT_BEARER, assertion }),
    });
    expect(json.status).toBe(415);
    expect(json.headers.get('cache-control')).toBe('no-store');
    expect(((await json.json()) as any).error).toBe('invalid_request');
    const form = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
    });
    expect(form.status).toBe(200);
    const tokens = (await form.json()) as any;

    const revokeJson = await fetch(`${base}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: tokens.access_token }),
    });
    expect(revokeJson.status).toBe(415);
    expect(((await revokeJson.json()) as any).error).toBe('invalid_request');
    // Not revoked.
    const still = await fetch(`${base}/api/workspaces`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(still.status).toBe(200);
  });

  it('without PUBLIC_URL, takes its origin from Host only for a loopback name on its own port', async () => {
    const discovery = async (host: string) => {
      const res = await withHost(host, 'GET', '/.well-known/oauth-authorization-server');
      expect(res.status).toBe(200);
      return JSON.parse(res.text) as Record<string, any>;
    };
    const resourceMeta = async (host: string) =>
      JSON.parse((await withHost(host, 'GET', '/.well-known/oauth-protected-resource')).text) as Record<string, any>;
    // Local development and tests: any loopback name the platform was reached on.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const meta = await discovery(host);
      expect([meta.issuer, meta.token_endpoint]).toEqual([`http://${host}`, `http://${host}/oauth2/token`]);
    }
    // Any other Host: the documented default, http://localhost:$PORT (the port it listens on).
    const fallback = `http://localhost:${port}`;
    for (const host of ['other-as.example.com', `other-as.example.com:${port}`, 'localhost:1', `127.0.0.2:${port}`]) {
      const meta = await discovery(host);
      expect({ host, issuer: meta.issuer }).toEqual({ host, issuer: fallback });
      for (const url of [meta.token_endpoint, meta.authorization_endpoint, meta.agent_auth.identity_endpoint])
        expect(url.startsWith(`${fallback}/`), url).toBe(true);
      const resource = await resourceMeta(host);
      expect([resource.resource, resource.authorization_servers]).toEqual([`${fallback}/api/mcp`, [fallback]]);
    }

    // An ID-JAG and a SET minted for another server are not for this one, whatever Host says.
    const other = 'http://other-as.example.com';
    const assertion = await idp.idJag(other, { email: owner.email });
    const exchanged = await withHost('other-as.example.com', 'POST', '/oauth2/token', {
      type: 'application/x-www-form-urlencoded',
      text: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
    });
    expect([exchanged.status, JSON.parse(exchanged.text).error]).toEqual([400, 'invalid_grant']);
    const set = await idp.securityEvent(
      other,
      { [SESSION_REVOKED]: {} },
      { sub_id: { format: 'email', email: owner.email } },
    );
    const pushed = await withHost('other-as.example.com', 'POST', '/agent/event/notify', {
      type: 'application/secevent+jwt',
      text: set,
    });
    expect([pushed.status, JSON.parse(pushed.text).err]).toEqual([400, 'invalid_audience']);
    // The default itself is this server: an ID-JAG for it is accepted, whatever Host says.
    const forDefault = await withHost('other-as.example.com', 'POST', '/oauth2/token', {
      type: 'application/x-www-form-urlencoded',
      text: new URLSearchParams({
        grant_type: JWT_BEARER,
        assertion: await idp.idJag(fallback, { email: owner.email }),
      }).toString(),
    });
    expect(forDefault.status, forDefault.text).toBe(200);
  });
});
