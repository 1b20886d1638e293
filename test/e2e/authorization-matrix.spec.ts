import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleAllows, type Relation } from '@kw/platform-access-policy';
import { adminEnv, authHeaders, createToken, userWithToken } from '../support/accounts.js';
import { MATRIX_ROUTES, type MatrixRoute } from '../support/authz/routes.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../support/processes.js';
import { startSearxngStandIn } from '../support/stand-ins/searxng-stand-in.js';

/**
 * Every route of the matrix, for every kind of caller, through real HTTP: credentials that do
 * not work (401), callers who may not know the workspace exists (404, byte-identical to an
 * unknown id), callers who may see it but not act (403), and callers who may act.
 */
type Principal =
  | 'owner'
  | 'collaborator'
  | 'contributor'
  | 'viewer'
  | 'subscriber'
  | 'non-member'
  | 'other-workspace token'
  | 'token lacking the scope'
  | 'expired token'
  | 'revoked token'
  | 'malformed token'
  | 'missing token';

const PRINCIPALS: Principal[] = [
  'owner',
  'collaborator',
  'contributor',
  'viewer',
  'subscriber',
  'non-member',
  'other-workspace token',
  'token lacking the scope',
  'expired token',
  'revoked token',
  'malformed token',
  'missing token',
];
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const UNRELATED_SCOPE = 'vault:manage';

type Expected = 'allowed' | 401 | 403 | 404;

interface Caller {
  token?: string;
  userId?: string;
  /** The relation the caller has to the workspace the case runs on. */
  relation: Relation;
  /** Run on the public workspace (subscribers) instead of the private one. */
  onPublic?: boolean;
}

interface Answer {
  status: number;
  text: string;
}

describe('authorization matrix', () => {
  const dataDir = tempDir('kw-matrix-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  const callers = new Map<Principal, Caller>();
  const people = new Map<string, { token: string; userId: string; email: string }>();
  let privateWs: string;
  let publicWs: string;
  let counter = 0;
  let searxng: Awaited<ReturnType<typeof startSearxngStandIn>>;

  async function call(
    token: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    multipart = false,
  ): Promise<Answer> {
    const headers: Record<string, string> = token ? authHeaders(token) : {};
    const text = body === undefined ? undefined : JSON.stringify(body).replaceAll('{n}', String(counter++));
    let payload: string | FormData | undefined = text;
    if (multipart) {
      // The fields first (the upload reads them before the file parts), then one small file.
      payload = new FormData();
      for (const [name, value] of Object.entries(text === undefined ? {} : JSON.parse(text)))
        payload.append(name, String(value));
      payload.append('file', new Blob(['matrix\n'], { type: 'text/plain' }), 'matrix.txt');
    } else if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, { method, headers, body: payload });
    return { status: res.status, text: await res.text() };
  }

  async function ok(token: string, method: string, path: string, body: unknown, status: number) {
    const answer = await call(token, method, path, body);
    if (answer.status !== status)
      throw new Error(`${method} ${path}: expected ${status}, got ${answer.status}: ${answer.text}`);
    return answer.text ? JSON.parse(answer.text) : undefined;
  }

  /** A workspace owned by `owner` with one member of each role, a spare member and a pending invitation. */
  async function buildWorkspace(visibility: 'private' | 'public') {
    const owner = people.get('owner')!;
    const { workspace } = await ok(
      owner.token,
      'POST',
      '/api/workspaces',
      { name: `matrix ${visibility} ${counter++}`, visibility },
      201,
    );
    for (const role of ['collaborator', 'contributor', 'viewer', 'spare'] as const) {
      const person = people.get(role)!;
      const { invitation } = await ok(
        owner.token,
        'POST',
        `/api/workspaces/${workspace.id}/members`,
        { email: person.email, role: role === 'spare' ? 'viewer' : role },
        201,
      );
      await ok(person.token, 'POST', `/api/invitations/${invitation.id}/accept`, undefined, 200);
    }
    const { invitation } = await ok(
      owner.token,
      'POST',
      `/api/workspaces/${workspace.id}/members`,
      { email: `pending-${counter++}@example.test`, role: 'viewer' },
      201,
    );
    // Content of the owner's, for the fragment routes.
    const { fragmentType } = await ok(
      owner.token,
      'POST',
      `/api/workspaces/${workspace.id}/fragment-types`,
      { key: 'matrix', name: 'Matrix' },
      201,
    );
    const { items: types } = await ok(
      owner.token,
      'GET',
      `/api/workspaces/${workspace.id}/fragment-types`,
      undefined,
      200,
    );
    const note = types.find((t: { key: string }) => t.key === 'note');
    const { fragment } = await ok(
      owner.token,
      'POST',
      '/api/memory-fragments',
      { workspaceId: workspace.id, fragmentTypeId: note.id, title: 'matrix', content: 'matrix' },
      201,
    );
    const { collection } = await ok(
      owner.token,
      'POST',
      `/api/workspaces/${workspace.id}/collections`,
      { name: 'matrix' },
      201,
    );
    const { webhook } = await ok(
      owner.token,
      'POST',
      `/api/workspaces/${workspace.id}/webhooks`,
      { name: 'matrix', url: 'https://127.0.0.1:1/hooks', events: ['fragment.created'], enabled: false },
      201,
    );
    const { outcomes } = await ok(
      owner.token,
      'POST',
      `/api/workspaces/${workspace.id}/webhooks/trigger`,
      { eventType: 'fragment.created', webhookId: webhook.id },
      200,
    );
    // A file of the owner's, attached to the fragment, for the file routes.
    const { fileId } = await ok(
      owner.token,
      'POST',
      '/api/workspace-files/bytes',
      { workspaceId: workspace.id, fileName: 'matrix.txt', mimeType: 'text/plain', base64: 'bWF0cml4Cg==' },
      201,
    );
    await ok(owner.token, 'POST', `/api/files/${fileId}/attachments`, { fragmentId: fragment.id }, 200);
    // An export job of the owner's, for the transfer routes.
    const { transfer } = await ok(owner.token, 'POST', `/api/workspaces/${workspace.id}/exports`, undefined, 202);
    return {
      id: workspace.id as string,
      member: people.get('spare')!.userId,
      invitation: invitation.id as string,
      fragment: fragment.id as string,
      collection: collection.id as string,
      type: fragmentType.id as string,
      webhook: webhook.id as string,
      delivery: outcomes[0].deliveryId as string,
      file: fileId as string,
      export: transfer.id as string,
    };
  }

  let privateFixture: Awaited<ReturnType<typeof buildWorkspace>>;
  let publicFixture: Awaited<ReturnType<typeof buildWorkspace>>;

  beforeAll(async () => {
    searxng = await startSearxngStandIn();
    // The matrix makes hundreds of calls with a few credentials: rate limits are tested elsewhere.
    platform = await startEmbedded(dataDir, {
      ...admin,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_CREDENTIAL: '100000',
      RATE_LIMIT_PER_WORKSPACE: '100000',
      RATE_LIMIT_PER_ADDRESS: '100000',
      // The matrix presents expired, revoked and malformed tokens on every route from one address.
      AUTH_FAILURES_PER_ADDRESS: '100000',
      AUTH_FAILURES_PER_CREDENTIAL: '100000',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      WEB_SEARCH_PROVIDER: 'searxng',
      WEB_SEARCH_URL: searxng.url,
    });
    base = platform.url;
    for (const name of ['owner', 'collaborator', 'contributor', 'viewer', 'spare', 'subscriber', 'non-member']) {
      const { user, token } = await userWithToken(base, admin.ADMIN_TOKEN, { scopes: ['*'] });
      people.set(name, { token, userId: user.id, email: user.email });
      await ok(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${user.id}/web-search`, undefined, 204);
    }
    privateFixture = await buildWorkspace('private');
    publicFixture = await buildWorkspace('public');
    privateWs = privateFixture.id;
    publicWs = publicFixture.id;
    await ok(people.get('subscriber')!.token, 'POST', `/api/workspaces/${publicWs}/subscribe`, undefined, 200);

    const owner = people.get('owner')!;
    const { workspace: other } = await ok(owner.token, 'POST', '/api/workspaces', { name: 'another workspace' }, 201);
    const restricted = await createToken(base, owner.token, {
      name: 'other workspace only',
      scopes: ['*'],
      workspaceIds: [other.id],
    });
    const scopeless = await createToken(base, owner.token, { name: 'unrelated scope', scopes: [UNRELATED_SCOPE] });
    const expiring = await createToken(base, owner.token, {
      name: 'expiring',
      scopes: ['*'],
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    const revoked = await createToken(base, owner.token, { name: 'revoked', scopes: ['*'] });
    await ok(owner.token, 'DELETE', `/api/tokens/${revoked.id}`, undefined, 204);

    for (const role of ['owner', 'collaborator', 'contributor', 'viewer'] as const) {
      callers.set(role, { token: people.get(role)!.token, userId: people.get(role)!.userId, relation: role });
    }
    callers.set('subscriber', { token: people.get('subscriber')!.token, relation: 'subscriber', onPublic: true });
    callers.set('non-member', { token: people.get('non-member')!.token, relation: 'none' });
    callers.set('other-workspace token', { token: restricted.token, relation: 'owner' });
    callers.set('token lacking the scope', { token: scopeless.token, relation: 'owner' });
    callers.set('expired token', { token: expiring.token, relation: 'owner' });
    callers.set('revoked token', { token: revoked.token, relation: 'owner' });
    callers.set('malformed token', { token: `kwp_${'A'.repeat(36)}`, relation: 'owner' });
    callers.set('missing token', { relation: 'owner' });
    // Let the expiring token expire.
    await new Promise((r) => setTimeout(r, Math.max(0, 1600)));
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await searxng?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function expected(principal: Principal, route: MatrixRoute): Expected {
    // A public route ignores credentials, good or bad: everyone gets the same answer.
    if (route.public) return 'allowed';
    if (['expired token', 'revoked token', 'malformed token', 'missing token'].includes(principal)) return 401;
    const caller = callers.get(principal)!;
    const scopes = principal === 'token lacking the scope' ? [UNRELATED_SCOPE] : ['*'];
    if (route.account) {
      if (!route.anyScope && !scopes.includes('*') && !scopes.includes(route.action)) return 403;
      if (route.platformAdmin) return 403; // none of the matrix callers is a platform admin
      if (route.allWorkspacesOnly && principal === 'other-workspace token') return 403;
      return 'allowed';
    }
    if (principal === 'non-member' || principal === 'other-workspace token') return 404;
    if (route.needsArchived && caller.relation !== 'owner') return 404;
    if (!scopes.includes('*') && !scopes.includes(route.action)) return 403;
    return roleAllows(caller.relation, route.action, route.creates ?? false) ? 'allowed' : 403;
  }

  type Target = Awaited<ReturnType<typeof buildWorkspace>>;

  function fill(path: string, target: Target, tokenId?: string): string {
    return path
      .replaceAll('{ws}', target.id)
      .replaceAll('{member}', target.member)
      .replaceAll('{invitation}', target.invitation)
      .replaceAll('{fragment}', target.fragment)
      .replaceAll('{collection}', target.collection)
      .replaceAll('{type}', target.type)
      .replaceAll('{webhook}', target.webhook)
      .replaceAll('{delivery}', target.delivery)
      .replaceAll('{file}', target.file)
      .replaceAll('{export}', target.export)
      .replaceAll('{token}', tokenId ?? UNKNOWN_ID);
  }

  const fillBody = (body: unknown, target: Target, tokenId?: string): unknown =>
    body === undefined ? undefined : JSON.parse(fill(JSON.stringify(body), target, tokenId));

  const cases = MATRIX_ROUTES.flatMap((route) => PRINCIPALS.map((principal) => ({ route, principal })));

  it.each(cases)('$route.method $route.path as $principal', async ({ route, principal }) => {
    const caller = callers.get(principal)!;
    const want = expected(principal, route);
    let target = caller.onPublic ? publicFixture : privateFixture;
    if (route.destructive && (want === 'allowed' || route.needsArchived))
      target = await buildWorkspace(caller.onPublic ? 'public' : 'private');
    if (route.needsArchived)
      await ok(people.get('owner')!.token, 'DELETE', `/api/workspaces/${target.id}`, undefined, 200);
    // The caller's own token, for token routes.
    const tokenId =
      route.path.includes('{token}') && caller.token && want === 'allowed'
        ? (await createToken(base, caller.token, { name: 'matrix target', scopes: ['profile:read'] })).id
        : undefined;

    // The caller's own secret, for vault routes.
    const secretId =
      route.path.includes('{secret}') && caller.token && want === 'allowed'
        ? (
            await ok(
              caller.token,
              'POST',
              '/api/v1/vault/secrets',
              { name: `matrix target ${counter++}`, type: 'generic', value: 'v' },
              201,
            )
          ).secret.id
        : undefined;

    const answer = await call(
      caller.token,
      route.method,
      fill(route.path, target, tokenId)
        .replaceAll('{secret}', secretId ?? UNKNOWN_ID)
        .replaceAll('{expert}', UNKNOWN_ID)
        .replaceAll('{config}', UNKNOWN_ID)
        .replaceAll('{key}', UNKNOWN_ID),
      fillBody(route.body, target, tokenId),
      route.multipart,
    );
    if (route.perItem && want !== 401) {
      // One outcome per id: the refusal is the outcome's, the request itself succeeds.
      expect(answer.status, answer.text).toBe(200);
      const [outcome] = JSON.parse(answer.text).results;
      if (want === 'allowed') expect(outcome, answer.text).toMatchObject({ deleted: true });
      else
        expect(outcome, answer.text).toMatchObject({
          deleted: false,
          code: want === 403 ? expect.any(String) : 'NOT_FOUND',
        });
    } else if (want === 'allowed') {
      if (route.allowedStatuses) expect(route.allowedStatuses, answer.text).toContain(answer.status);
      else expect([401, 403, 404], answer.text).not.toContain(answer.status);
      expect(answer.status, answer.text).toBeLessThan(500);
    } else {
      expect(answer.status, answer.text).toBe(want);
      const body = JSON.parse(answer.text);
      // The OpenAI-compatible routes answer {error: {code}} with the code in lower case.
      if (route.path.startsWith('/api/v1/')) body.code = String(body.error?.code).toUpperCase();
      expect(body.code).toEqual(want === 401 ? 'UNAUTHENTICATED' : want === 403 ? expect.any(String) : 'NOT_FOUND');
    }
    if (want === 404 && (route.path.includes('{ws}') || route.path.includes('{file}') || route.perItem)) {
      // Cross-tenant answers are byte-identical to the answer for an id that does not exist
      // (per id, for a per-item route: its outcome names the id it was given).
      const unknown = { ...target, id: UNKNOWN_ID, file: UNKNOWN_ID };
      const missing = await call(
        caller.token,
        route.method,
        fill(route.path, unknown, tokenId),
        fillBody(route.body, unknown, tokenId),
        route.multipart,
      );
      expect(missing.status).toBe(route.perItem ? 200 : 404);
      expect(route.perItem ? answer.text.replaceAll(target.file, UNKNOWN_ID) : answer.text).toBe(missing.text);
    }
  });

  it("keeps private workspaces out of a non-member's listings", async () => {
    const outsider = people.get('non-member')!.token;
    for (const path of ['/api/workspaces', '/api/workspaces/accessible', '/api/workspaces/discover']) {
      const answer = await call(outsider, 'GET', path);
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(privateWs);
    }
  });
});
