import { randomBytes } from 'node:crypto';
import { assertNoContractInternals } from './http.js';

/**
 * Accounts and credentials for end-to-end tests against a running platform (`base` is its
 * URL). Start the platform with a known first admin:
 *
 *   const admin = adminEnv();   // { ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN }
 *   const platform = await startEmbedded(tempDir(), admin);
 *   const { user, token } = await userWithToken(platform.url, admin.ADMIN_TOKEN, { scopes: ['workspaces:read'] });
 *   await fetch(`${platform.url}/api/workspaces`, { headers: authHeaders(token) });
 */

/** A browser session: the Cookie header to send, and the CSRF value for state-changing requests. */
export interface SessionAuth {
  cookie: string;
  csrf: string;
}

/** A bearer token (string) or a signed-in session. */
export type TestAuth = string | SessionAuth;

export interface TestUser {
  id: string;
  email: string;
  password: string;
  displayName: string;
}

/** ADMIN_* variables for startEmbedded/startApp: a first platform admin with a known token. */
export function adminEnv(overrides: Partial<Record<'ADMIN_EMAIL' | 'ADMIN_PASSWORD' | 'ADMIN_TOKEN', string>> = {}) {
  return {
    ADMIN_EMAIL: 'admin@example.test',
    ADMIN_PASSWORD: `pw-${randomBytes(12).toString('hex')}`,
    ADMIN_TOKEN: `test-admin-token-${randomBytes(24).toString('hex')}`,
    ...overrides,
  };
}

/**
 * Headers authenticating a request: `Authorization: Bearer` for a token; the cookies, plus
 * `x-csrf-token` (needed on POST/PUT/PATCH/DELETE), for a session.
 */
export function authHeaders(auth: TestAuth, extra: Record<string, string> = {}): Record<string, string> {
  if (typeof auth === 'string') return { authorization: `Bearer ${auth}`, ...extra };
  return { cookie: auth.cookie, 'x-csrf-token': auth.csrf, ...extra };
}

/** JSON request with the given credential; throws with the body when the status is not `expect`. */
async function send(
  base: string,
  method: string,
  path: string,
  auth: TestAuth | undefined,
  body: unknown,
  expect: number,
): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(auth ? authHeaders(auth) : {}), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect)
    throw new Error(`${method} ${path}: expected ${expect}, got ${res.status}: ${text.slice(0, 500)}`);
  assertNoContractInternals(text, `${method} ${path}`);
  return text ? JSON.parse(text) : undefined;
}

/** Signs in with email and password; returns the session cookies and the CSRF value. */
export async function signIn(base: string, email: string, password: string): Promise<SessionAuth> {
  const res = await fetch(`${base}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in of ${email}: expected 200, got ${res.status}: ${await res.text()}`);
  const cookies = new Map<string, string>();
  for (const header of res.headers.getSetCookie()) {
    const [pair] = header.split(';');
    const eq = pair.indexOf('=');
    cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  const session = cookies.get('kw_session');
  const csrf = cookies.get('kw_csrf');
  if (!session || !csrf) throw new Error('sign-in set no kw_session / kw_csrf cookie');
  return { cookie: `kw_session=${session}; kw_csrf=${csrf}`, csrf: decodeURIComponent(csrf) };
}

let counter = 0;

/** Creates an account through the admin route (the admin token needs scope `admin` or `*`). */
export async function createUser(
  base: string,
  adminToken: string,
  options: { email?: string; password?: string; displayName?: string } = {},
): Promise<TestUser> {
  const unique = `${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(3).toString('hex')}`;
  const email = options.email ?? `user-${unique}@example.test`;
  const password = options.password ?? `pw-${randomBytes(12).toString('hex')}`;
  const displayName = options.displayName ?? `User ${unique}`;
  const { user } = await send(base, 'POST', '/api/admin/users', adminToken, { email, displayName, password }, 201);
  return { id: user.id, email: user.email, password, displayName: user.displayName };
}

export interface TokenOptions {
  name?: string;
  scopes?: string[];
  /** Absent: every workspace the user can reach. */
  workspaceIds?: string[];
  /** ISO 8601, in the future. */
  expiresAt?: string;
}

/** Creates a personal access token with the given credential; returns its id and the secret. */
export async function createToken(
  base: string,
  auth: TestAuth,
  options: TokenOptions = {},
): Promise<{ id: string; token: string; body: any }> {
  const body = await send(
    base,
    'POST',
    '/api/tokens',
    auth,
    { name: options.name ?? 'test token', scopes: options.scopes ?? ['*'], ...pick(options) },
    201,
  );
  return { id: body.id, token: body.token, body };
}

function pick(options: TokenOptions): Partial<TokenOptions> {
  const out: Partial<TokenOptions> = {};
  if (options.workspaceIds) out.workspaceIds = options.workspaceIds;
  if (options.expiresAt) out.expiresAt = options.expiresAt;
  return out;
}

/**
 * A fresh account and a personal access token of it (scopes default to `*`), made by signing
 * the new user in: a token is always minted by its own user.
 */
export async function userWithToken(
  base: string,
  adminToken: string,
  options: { email?: string; password?: string; displayName?: string } & TokenOptions = {},
): Promise<{ user: TestUser; token: string; tokenId: string }> {
  const user = await createUser(base, adminToken, options);
  const session = await signIn(base, user.email, user.password);
  const { id, token } = await createToken(base, session, options);
  return { user, token, tokenId: id };
}
