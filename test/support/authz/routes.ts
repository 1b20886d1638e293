import type { Action } from '@kw/platform-access-policy';

/**
 * The routes the authorization matrix walks. Each later issue appends its own routes here
 * (one entry per route), and the matrix checks them for every kind of caller.
 *
 * Path placeholders, filled from the fixture: {ws} the workspace, {member} a member to act
 * on, {invitation} a pending invitation, {token} one of the caller's own tokens, {fragment} a
 * fragment, {collection} a collection and {type} an unused fragment type, {webhook} a webhook
 * and {delivery} one of its deliveries, {file} a file (attached to {fragment}), all created by
 * the owner, {secret} a vault secret of the caller's own, {export} an export job of the owner's.
 * Placeholders are filled in bodies too.
 */
export interface MatrixRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  /** The policy action the route needs (scope and role come from it). */
  action: Action;
  /** Account-level route: no workspace involved, only the credential's scope matters. */
  account?: boolean;
  /** Any working credential may call it, whatever its scopes (it reports on the credential itself). */
  anyScope?: boolean;
  /** Only a platform admin may call it. */
  platformAdmin?: boolean;
  /**
   * Refused (403) to a credential restricted to a list of workspaces: it reaches beyond any list
   * (creating a workspace; hosted zones, which serve workspaces outside the list).
   */
  allWorkspacesOnly?: boolean;
  /** No credential: the route authenticates its body itself (a provider's signed webhook), so every caller gets the same answer. */
  public?: boolean;
  body?: unknown;
  /**
   * A successful call changes the target (archive, remove a member...): callers expected to
   * succeed run it on a fresh copy of the workspace so the other cases are unaffected.
   */
  destructive?: boolean;
  /** The target must be archived first (restore). Non-owners then see nothing: 404. */
  needsArchived?: boolean;
  /** The route creates new content: roles that may write their own content (contributors) may call it. */
  creates?: boolean;
  /**
   * The statuses a caller who may act can get, when "allowed" must be narrower than the default
   * (any status below 500 other than 401, 403 and 404). Account-level routes may list 404 (a
   * model that does not exist): no caller of theirs is expected a 404 for lack of access.
   */
  allowedStatuses?: number[];
  /** Sent as multipart/form-data: the body's fields first, then one small text file part `file`. */
  multipart?: boolean;
  /**
   * The route acts on the ids of `body.ids` one by one and answers 200 with an outcome per id
   * (`results: [{id, deleted, code?}]`): a refusal is that outcome's code, not the HTTP status.
   */
  perItem?: boolean;
}

export const WORKSPACE_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/workspaces', action: 'workspaces:read', account: true },
  {
    method: 'POST',
    path: '/api/workspaces',
    action: 'workspaces:write',
    account: true,
    allWorkspacesOnly: true,
    body: { name: 'matrix' },
  },
  { method: 'GET', path: '/api/workspaces/accessible', action: 'workspaces:read', account: true },
  { method: 'GET', path: '/api/workspaces/discover', action: 'workspaces:read', account: true },
  { method: 'GET', path: '/api/workspaces/archived', action: 'workspaces:read', account: true },
  { method: 'GET', path: '/api/invitations', action: 'workspaces:read', account: true },
  { method: 'GET', path: '/api/notifications', action: 'profile:read', account: true },
  { method: 'POST', path: '/api/notifications/read-all', action: 'profile:write', account: true },
  { method: 'GET', path: '/api/workspaces/{ws}', action: 'workspaces:read' },
  {
    method: 'PATCH',
    path: '/api/workspaces/{ws}',
    action: 'workspaces:write',
    body: { description: 'changed by the matrix' },
  },
  { method: 'GET', path: '/api/workspaces/{ws}/settings', action: 'workspaces:read' },
  {
    method: 'PATCH',
    path: '/api/workspaces/{ws}/settings',
    action: 'workspaces:write',
    body: { enrichment: { summaries: true } },
  },
  // Portable workspaces (owners only): an export starts a job (202); an import is authorized
  // before its body is read, so an allowed caller's JSON body is 415 and a refused one 403/404.
  { method: 'POST', path: '/api/workspaces/{ws}/exports', action: 'workspaces:write' },
  { method: 'POST', path: '/api/workspaces/{ws}/imports', action: 'workspaces:write', body: {} },
  // A job's status and its archive (200, or 409 while it is not done): owners only, like starting it.
  { method: 'GET', path: '/api/workspaces/{ws}/exports/{export}', action: 'workspaces:write' },
  { method: 'GET', path: '/api/workspaces/{ws}/exports/{export}/download', action: 'workspaces:write' },
  // Moving between planes (owners only). The fixture's workspace is in the Cloud already, so an
  // allowed caller is told 409 (already there) and nothing moves; the move's own routes need a
  // started move and are covered in test/e2e/hosted-zones/workspace-moves.spec.ts.
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/moves',
    action: 'workspaces:write',
    body: { hostedZoneId: null },
    allowedStatuses: [409],
  },
  { method: 'GET', path: '/api/workspaces/{ws}/members', action: 'members:read' },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/members',
    action: 'members:manage',
    body: { email: 'invitee-{n}@example.test', role: 'viewer' },
  },
  {
    method: 'PATCH',
    path: '/api/workspaces/{ws}/members/{member}',
    action: 'members:manage',
    body: { role: 'contributor' },
    destructive: true,
  },
  { method: 'DELETE', path: '/api/workspaces/{ws}/members/{member}', action: 'members:manage', destructive: true },
  { method: 'GET', path: '/api/workspaces/{ws}/invitations', action: 'members:read' },
  {
    method: 'DELETE',
    path: '/api/workspaces/{ws}/invitations/{invitation}',
    action: 'members:manage',
    destructive: true,
  },
  { method: 'DELETE', path: '/api/workspaces/{ws}', action: 'workspaces:delete', destructive: true },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/restore',
    action: 'workspaces:delete',
    destructive: true,
    needsArchived: true,
  },
];

export const IDENTITY_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/auth/validate-token', action: 'profile:read', account: true, anyScope: true },
  { method: 'GET', path: '/api/profile', action: 'profile:read', account: true },
  {
    method: 'PATCH',
    path: '/api/profile',
    action: 'profile:write',
    account: true,
    body: { displayName: 'Matrix Person' },
  },
  { method: 'GET', path: '/api/user/beta-features', action: 'profile:read', account: true },
  { method: 'GET', path: '/api/tokens', action: 'tokens:manage', account: true },
  {
    method: 'POST',
    path: '/api/tokens',
    action: 'tokens:manage',
    account: true,
    body: { name: 'matrix', scopes: ['profile:read'] },
  },
  { method: 'GET', path: '/api/tokens/{token}', action: 'tokens:manage', account: true },
  { method: 'GET', path: '/api/tokens/{token}/analytics', action: 'tokens:manage', account: true },
  {
    method: 'POST',
    path: '/api/admin/users',
    action: 'admin',
    account: true,
    platformAdmin: true,
    body: { email: 'made-{n}@example.test', displayName: 'Made', password: 'a-long-enough-password-1' },
  },
  // Administering accounts (docs/authentication.md#administering-accounts).
  { method: 'GET', path: '/api/admin/users', action: 'admin', account: true, platformAdmin: true },
  { method: 'GET', path: '/api/admin/users/{member}', action: 'admin', account: true, platformAdmin: true },
  {
    method: 'PATCH',
    path: '/api/admin/users/{member}',
    action: 'admin',
    account: true,
    platformAdmin: true,
    body: { status: 'active' },
  },
  // Withdraws every handoff signing key at once (docs/hosted-zones.md#keys-and-rotation).
  {
    method: 'POST',
    path: '/api/admin/handoff-keys/rotate',
    action: 'admin',
    account: true,
    platformAdmin: true,
    allowedStatuses: [200],
  },
  // Agent authentication: a user's agent grants, and the platform's trusted identity providers.
  // (POST /api/agent-claims/{id}/decision is session-only: test/e2e/agent-auth/agent-claim-browser.spec.ts.)
  { method: 'GET', path: '/api/agent-grants', action: 'tokens:manage', account: true, allowedStatuses: [200] },
  {
    method: 'DELETE',
    path: '/api/agent-grants/00000000-0000-4000-8000-000000000000',
    action: 'tokens:manage',
    account: true,
    allowedStatuses: [404],
  },
  // OAuth applications (docs/oauth-applications.md): the caller's own; ids of others are 404.
  { method: 'GET', path: '/api/applications', action: 'applications:manage', account: true, allowedStatuses: [200] },
  {
    method: 'POST',
    path: '/api/applications',
    action: 'applications:manage',
    account: true,
    allowedStatuses: [201],
    body: { name: 'matrix {n}', redirectUris: ['https://app.example.test/cb'] },
  },
  {
    method: 'GET',
    path: '/api/applications/00000000-0000-4000-8000-000000000000',
    action: 'applications:manage',
    account: true,
    allowedStatuses: [404],
  },
  {
    method: 'PATCH',
    path: '/api/applications/00000000-0000-4000-8000-000000000000',
    action: 'applications:manage',
    account: true,
    allowedStatuses: [404],
    body: { name: 'renamed' },
  },
  {
    method: 'DELETE',
    path: '/api/applications/00000000-0000-4000-8000-000000000000',
    action: 'applications:manage',
    account: true,
    allowedStatuses: [404],
  },
  {
    method: 'POST',
    path: '/api/applications/00000000-0000-4000-8000-000000000000/secret',
    action: 'applications:manage',
    account: true,
    allowedStatuses: [404],
    body: { overlapHours: 1 },
  },
  {
    method: 'GET',
    path: '/api/admin/trusted-issuers',
    action: 'admin',
    account: true,
    platformAdmin: true,
    allowedStatuses: [200],
  },
  {
    method: 'POST',
    path: '/api/admin/trusted-issuers',
    action: 'admin',
    account: true,
    platformAdmin: true,
    allowedStatuses: [201],
    body: {
      issuer: 'https://idp-{n}.example.test',
      jwks: {
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
            y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
          },
        ],
      },
      algorithms: ['ES256'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/admin/trusted-issuers/00000000-0000-4000-8000-000000000000',
    action: 'admin',
    account: true,
    platformAdmin: true,
    allowedStatuses: [404],
  },
];

const FRAGMENT_BODY = { workspaceId: '{ws}', fragmentTypeId: '{type}', title: 'matrix {n}', content: '# Matrix' };

export const FRAGMENT_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/workspaces/{ws}/fragment-types', action: 'fragments:read' },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/fragment-types',
    action: 'fragments:write',
    creates: true,
    body: { key: 'matrix-{n}', name: 'Matrix' },
  },
  { method: 'GET', path: '/api/workspaces/{ws}/fragment-types/{type}', action: 'fragments:read' },
  {
    method: 'PATCH',
    path: '/api/workspaces/{ws}/fragment-types/{type}',
    action: 'fragments:write',
    body: { description: 'changed by the matrix' },
  },
  {
    method: 'DELETE',
    path: '/api/workspaces/{ws}/fragment-types/{type}',
    action: 'fragments:delete',
    destructive: true,
  },
  { method: 'GET', path: '/api/memory-fragments?workspaceId={ws}', action: 'fragments:read' },
  { method: 'POST', path: '/api/memory-fragments', action: 'fragments:write', creates: true, body: FRAGMENT_BODY },
  {
    method: 'POST',
    path: '/api/memory-fragments/bulk',
    action: 'fragments:write',
    creates: true,
    body: { workspaceId: '{ws}', items: [{ fragmentTypeId: '{type}', title: 'matrix bulk', content: 'c' }] },
  },
  {
    method: 'POST',
    path: '/api/memory-fragments/check-limits',
    action: 'fragments:read',
    body: { workspaceId: '{ws}' },
  },
  { method: 'GET', path: '/api/memory-fragments/{fragment}', action: 'fragments:read' },
  { method: 'PATCH', path: '/api/memory-fragments/{fragment}', action: 'fragments:write', body: { tags: ['matrix'] } },
  { method: 'POST', path: '/api/memory-fragments/{fragment}/enrich', action: 'fragments:write' },
  { method: 'DELETE', path: '/api/memory-fragments/{fragment}', action: 'fragments:delete', destructive: true },
  { method: 'GET', path: '/api/workspaces/{ws}/collections', action: 'collections:read' },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/collections',
    action: 'collections:write',
    creates: true,
    body: { name: 'matrix {n}' },
  },
  { method: 'GET', path: '/api/workspaces/{ws}/collections/{collection}', action: 'collections:read' },
  {
    method: 'PATCH',
    path: '/api/workspaces/{ws}/collections/{collection}',
    action: 'collections:write',
    body: { description: 'changed by the matrix' },
  },
  {
    method: 'DELETE',
    path: '/api/workspaces/{ws}/collections/{collection}',
    action: 'collections:write',
    destructive: true,
  },
  { method: 'GET', path: '/api/workspaces/{ws}/collections/{collection}/fragments', action: 'collections:read' },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/collections/{collection}/fragments',
    action: 'collections:write',
    body: { fragmentIds: ['{fragment}'] },
  },
  {
    method: 'DELETE',
    path: '/api/workspaces/{ws}/collections/{collection}/fragments',
    action: 'collections:write',
    body: { fragmentIds: ['{fragment}'] },
  },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/fragment-collections',
    action: 'collections:read',
    body: { fragmentIds: ['{fragment}'] },
  },
];

/** Structured listing, agentic search and the graph (search component). Entity neighbourhoods need an entity: test/e2e/search/graph.spec.ts. */
export const LISTING_ROUTES: MatrixRoute[] = [
  {
    method: 'POST',
    path: '/api/fragments/list',
    action: 'fragments:read',
    body: { workspaceId: '{ws}', filter: "title ~ 'matrix'" },
  },
  {
    method: 'POST',
    path: '/api/fragments/agentic-search',
    action: 'search:read',
    body: { workspaceId: '{ws}', query: 'matrix' },
  },
  { method: 'GET', path: '/api/graph/stats?workspaceId={ws}', action: 'search:read' },
  { method: 'GET', path: '/api/graph/entities?workspaceId={ws}&q=ma', action: 'search:read' },
  {
    method: 'POST',
    path: '/api/graph/retrieve',
    action: 'search:read',
    body: { workspaceId: '{ws}', query: 'matrix' },
  },
];

/**
 * Workspace search (search component). Running and deleting a saved search address it by its
 * own id (no matrix placeholder): test/e2e/search/search-scenario.ts covers them.
 */
export const SEARCH_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/search?workspaceId={ws}&q=matrix', action: 'search:read' },
  { method: 'GET', path: '/api/search/simple?workspaceId={ws}&q=matrix', action: 'search:read' },
  { method: 'GET', path: '/api/search/suggestions?workspaceId={ws}&prefix=ma', action: 'search:read' },
  // Needs search:read and workspaces:read (it lists the caller's workspaces); the matrix's
  // scope-lacking token holds search:read only, so the listing's scope is the one to check.
  { method: 'GET', path: '/api/search/global?q=matrix', action: 'workspaces:read', account: true },
  {
    method: 'POST',
    path: '/api/search/saved',
    action: 'search:read',
    body: { workspaceId: '{ws}', name: 'matrix {n}', q: 'matrix' },
  },
  { method: 'GET', path: '/api/search/saved?workspaceId={ws}', action: 'search:read' },
  { method: 'GET', path: '/api/search/analytics?workspaceId={ws}', action: 'workspaces:write' },
];

/**
 * Webhooks (webhooks component): {webhook} is a disabled endpoint of the owner's with one test
 * delivery, {delivery}. Targets are a closed local port
 * (the matrix platform runs with the test setting WEBHOOKS_ALLOW_PRIVATE_TARGETS): sends fail at once.
 */
export const WEBHOOK_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/workspaces/{ws}/webhooks', action: 'webhooks:manage' },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/webhooks',
    action: 'webhooks:manage',
    body: { name: 'matrix {n}', url: 'https://127.0.0.1:1/hooks/{n}', events: ['fragment.created'], enabled: false },
  },
  { method: 'GET', path: '/api/workspaces/{ws}/webhooks/{webhook}', action: 'webhooks:manage' },
  {
    method: 'PATCH',
    path: '/api/workspaces/{ws}/webhooks/{webhook}',
    action: 'webhooks:manage',
    body: { name: 'changed by the matrix' },
  },
  { method: 'DELETE', path: '/api/workspaces/{ws}/webhooks/{webhook}', action: 'webhooks:manage', destructive: true },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/webhooks/trigger',
    action: 'webhooks:manage',
    body: { eventType: 'fragment.updated' },
  },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/webhooks/{webhook}/rotate-secret',
    action: 'webhooks:manage',
    body: {},
  },
  { method: 'GET', path: '/api/workspaces/{ws}/webhooks/{webhook}/deliveries', action: 'webhooks:manage' },
  { method: 'GET', path: '/api/workspaces/{ws}/webhooks/{webhook}/deliveries/{delivery}', action: 'webhooks:manage' },
  {
    method: 'POST',
    path: '/api/workspaces/{ws}/webhooks/{webhook}/deliveries/{delivery}/redeliver',
    action: 'webhooks:manage',
  },
];

/**
 * Hosted zones (workspaces component), account-level: a zone belongs to its creator, and a
 * credential restricted to a list of workspaces manages none (its zones serve others). The routes
 * on one zone ({id}: another user's zone answers 404) and the handoff (it needs a Leaf-backed
 * workspace, i.e. an enrolled Leaf) are covered in test/e2e/hosted-zones/zones-cloud.spec.ts.
 */
export const HOSTED_ZONE_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/hosted-zones', action: 'hosted-zones:manage', account: true, allWorkspacesOnly: true },
  {
    method: 'POST',
    path: '/api/hosted-zones',
    action: 'hosted-zones:manage',
    account: true,
    allWorkspacesOnly: true,
    body: { name: 'matrix {n}', region: 'test' },
  },
];

/**
 * Files (files component): {file} is a small text file of the owner's, stored through the byte
 * proxy and attached to {fragment}. Contributors write only their own files (`files:write` needs
 * writeOwn / writeAny), so on the owner's file they get 403, like on the owner's fragment.
 */
export const FILE_ROUTES: MatrixRoute[] = [
  {
    method: 'POST',
    path: '/api/files/upload',
    action: 'files:write',
    creates: true,
    multipart: true,
    body: { workspaceId: '{ws}' },
  },
  { method: 'GET', path: '/api/files?workspaceId={ws}', action: 'files:read' },
  { method: 'GET', path: '/api/files/search?workspaceId={ws}&q=matrix', action: 'files:read' },
  { method: 'GET', path: '/api/files/{file}', action: 'files:read' },
  {
    method: 'PATCH',
    path: '/api/files/{file}',
    action: 'files:write',
    body: { description: 'changed by the matrix' },
  },
  { method: 'GET', path: '/api/files/{file}/status', action: 'files:read' },
  { method: 'GET', path: '/api/files/{file}/chunks?limit=2', action: 'files:read' },
  { method: 'GET', path: '/api/files/{file}/download', action: 'files:read' },
  // 200 while the file is still processing, 409 CONFLICT once it is not (ready, or cancelled by
  // an earlier case): both mean the caller was let through.
  { method: 'POST', path: '/api/files/{file}/cancel', action: 'files:write', allowedStatuses: [200, 409] },
  // Idempotent: {file} is attached to {fragment} already.
  {
    method: 'POST',
    path: '/api/files/{file}/attachments',
    action: 'files:write',
    body: { fragmentId: '{fragment}' },
  },
  // Destructive: a second detach of the same attachment answers 404.
  {
    method: 'DELETE',
    path: '/api/files/{file}/attachments',
    action: 'files:write',
    body: { fragmentId: '{fragment}' },
    destructive: true,
  },
  { method: 'GET', path: '/api/fragments/{fragment}/files', action: 'files:read' },
  { method: 'GET', path: '/api/workspace-files/{file}/bytes', action: 'files:read' },
  {
    method: 'POST',
    path: '/api/workspace-files/bytes',
    action: 'files:write',
    creates: true,
    body: { workspaceId: '{ws}', fileName: 'm.txt', mimeType: 'text/plain', base64: 'aGVsbG8=' },
  },
  // Bulk delete answers 200 whoever calls (with a working credential): each id is decided as
  // DELETE /api/files/{id} would be, and a refusal is that id's outcome (`deleted: false` with
  // code FORBIDDEN or NOT_FOUND, the latter identical to an unknown id's), not the HTTP status.
  {
    method: 'POST',
    path: '/api/files/bulk-delete',
    action: 'files:write',
    body: { ids: ['{file}'] },
    destructive: true,
    perItem: true,
  },
  { method: 'DELETE', path: '/api/files/{file}', action: 'files:write', destructive: true },
];

/**
 * The chat component's routes (account-level). The matrix platform has no model provider, so a
 * completion or image request of an allowed caller ends in 400/404 after the scope check; its
 * web search answers from a SearXNG stand-in, and every matrix person has web-search access.
 * {secret} is one of the caller's own secrets (another user's answers 404, like an unknown id:
 * test/e2e/chat/vault-storage.spec.ts). GET /api/v1/images/{name} and /api/v1/openapi.json need
 * no credential (test/e2e/chat/).
 */
export const CHAT_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/v1/models', action: 'chat:use', account: true, allowedStatuses: [200] },
  // No provider here: an allowed caller's retrieve ends in 404 model_not_found, after the scope check.
  { method: 'GET', path: '/api/v1/models/matrix-model', action: 'chat:use', account: true, allowedStatuses: [404] },
  {
    method: 'POST',
    path: '/api/v1/chat/completions',
    action: 'chat:use',
    account: true,
    body: { model: 'matrix-model', messages: [{ role: 'user', content: 'hi' }] },
    allowedStatuses: [404],
  },
  {
    method: 'POST',
    path: '/api/v1/images/generations',
    action: 'chat:use',
    account: true,
    body: { prompt: 'matrix' },
    allowedStatuses: [404],
  },
  {
    method: 'POST',
    path: '/api/v1/web/search',
    action: 'chat:use',
    account: true,
    body: { query: 'matrix', num_results: 2 },
    allowedStatuses: [200],
  },
  { method: 'GET', path: '/api/v1/vault/secrets', action: 'vault:manage', account: true, allowedStatuses: [200] },
  {
    method: 'POST',
    path: '/api/v1/vault/secrets',
    action: 'vault:manage',
    account: true,
    body: { name: 'matrix {n}', type: 'generic', value: 'matrix value' },
    allowedStatuses: [201],
  },
  {
    method: 'GET',
    path: '/api/v1/vault/secrets/{secret}',
    action: 'vault:manage',
    account: true,
    allowedStatuses: [200],
  },
  {
    method: 'PATCH',
    path: '/api/v1/vault/secrets/{secret}',
    action: 'vault:manage',
    account: true,
    body: { description: 'changed by the matrix' },
    allowedStatuses: [200],
  },
  {
    method: 'DELETE',
    path: '/api/v1/vault/secrets/{secret}',
    action: 'vault:manage',
    account: true,
    allowedStatuses: [204],
  },
  { method: 'GET', path: '/api/v1/vault/accesses', action: 'vault:manage', account: true, allowedStatuses: [200] },
  {
    method: 'PUT',
    path: '/api/admin/users/{member}/web-search',
    action: 'admin',
    account: true,
    platformAdmin: true,
  },
  {
    method: 'DELETE',
    path: '/api/admin/users/{member}/web-search',
    action: 'admin',
    account: true,
    platformAdmin: true,
  },
];

/**
 * Custom experts (chat component). Creating one needs `applications:manage` and read access to
 * its workspace: a workspace route for the matrix (action `chat:use`, i.e. read). An expert
 * belongs to its creator: the routes on one ({expert} is an unknown id here) answer allowed
 * callers 404 after the scope check; ownership is in test/e2e/chat/experts.spec.ts.
 */
export const EXPERT_ROUTES: MatrixRoute[] = [
  {
    method: 'GET',
    path: '/api/v2/experts/tools',
    action: 'applications:manage',
    account: true,
    anyScope: true,
    allowedStatuses: [200],
  },
  { method: 'GET', path: '/api/v2/experts', action: 'applications:manage', account: true, allowedStatuses: [200] },
  {
    method: 'POST',
    path: '/api/v2/experts',
    action: 'chat:use',
    creates: true,
    body: { name: 'matrix {n}', workspaceId: '{ws}', expertConfig: { enabledTools: ['search'] } },
    allowedStatuses: [201],
  },
  {
    method: 'GET',
    path: '/api/v2/experts/{expert}',
    action: 'applications:manage',
    account: true,
    allowedStatuses: [404],
  },
  {
    method: 'PATCH',
    path: '/api/v2/experts/{expert}',
    action: 'applications:manage',
    account: true,
    body: { name: 'matrix' },
    allowedStatuses: [404],
  },
  {
    method: 'DELETE',
    path: '/api/v2/experts/{expert}',
    action: 'applications:manage',
    account: true,
    allowedStatuses: [404],
  },
];

/**
 * Embed configurations and keys (chat component): like experts, creating one is a workspace
 * route (read access and `applications:manage`); the routes on one ({config} and {key} are
 * unknown ids here) answer allowed callers 404 after the scope check. Ownership:
 * test/e2e/chat/embed-configs.spec.ts.
 */
const onOneConfig = (method: MatrixRoute['method'], path: string, body?: unknown): MatrixRoute => ({
  method,
  path,
  action: 'applications:manage',
  account: true,
  ...(body ? { body } : {}),
  allowedStatuses: [404],
});
export const EMBED_CONFIG_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/v2/configs', action: 'applications:manage', account: true, allowedStatuses: [200] },
  {
    method: 'POST',
    path: '/api/v2/configs',
    action: 'chat:use',
    creates: true,
    body: { workspaceId: '{ws}', name: 'matrix {n}' },
    allowedStatuses: [201],
  },
  onOneConfig('GET', '/api/v2/configs/{config}'),
  onOneConfig('PATCH', '/api/v2/configs/{config}', { name: 'matrix' }),
  onOneConfig('DELETE', '/api/v2/configs/{config}'),
  onOneConfig('GET', '/api/v2/configs/{config}/keys'),
  onOneConfig('POST', '/api/v2/configs/{config}/keys', { label: 'matrix', public: true }),
  onOneConfig('PATCH', '/api/v2/configs/{config}/keys/{key}', { label: 'matrix' }),
  onOneConfig('DELETE', '/api/v2/configs/{config}/keys/{key}'),
];

/** AI helpers (docs/ai-helpers.md), account-level, scope `chat:use`; the built-in provider answers. */
export const AI_HELPER_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/ai/availability', action: 'chat:use', account: true, allowedStatuses: [200] },
  {
    method: 'GET',
    path: '/api/ai/usage?groupBy=capability',
    action: 'chat:use',
    account: true,
    allowedStatuses: [200],
  },
  {
    method: 'POST',
    path: '/api/ai/embedding',
    action: 'chat:use',
    account: true,
    allowedStatuses: [200],
    body: { input: ['matrix'] },
  },
  {
    method: 'POST',
    path: '/api/ai/summary',
    action: 'chat:use',
    account: true,
    allowedStatuses: [200],
    body: { text: 'The matrix checks every route for every caller.' },
  },
  {
    method: 'POST',
    path: '/api/ai/tags',
    action: 'chat:use',
    account: true,
    allowedStatuses: [200],
    body: { text: 'The matrix checks every route for every caller.', max: 3 },
  },
];

/** Plans (docs/plans.md): reading is the account's; assigning is a platform administrator's. */
export const PLAN_ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/api/plans', action: 'profile:read', account: true, allowedStatuses: [200] },
  { method: 'GET', path: '/api/subscription', action: 'profile:read', account: true, allowedStatuses: [200] },
  {
    method: 'PUT',
    path: '/api/admin/users/00000000-0000-4000-8000-000000000000/plan',
    action: 'admin',
    account: true,
    platformAdmin: true,
    allowedStatuses: [404],
    body: { planId: 'self-hosted' },
  },
];

/**
 * Subscription billing (docs/billing.md): checkout and the portal are the account's (scope
 * `profile:write`); the webhook is public. The matrix runs without a billing provider, so an
 * allowed caller gets 409 BILLING_NOT_CONFIGURED. Flows: test/e2e/chat/billing.spec.ts.
 */
export const BILLING_ROUTES: MatrixRoute[] = [
  {
    method: 'POST',
    path: '/api/subscription/checkout',
    action: 'profile:write',
    account: true,
    allowedStatuses: [409],
    body: { planId: 'self-hosted' },
  },
  {
    method: 'POST',
    path: '/api/subscription/portal',
    action: 'profile:write',
    account: true,
    allowedStatuses: [409],
    body: {},
  },
  {
    method: 'POST',
    path: '/api/billing/stripe/webhook',
    action: 'profile:read',
    public: true,
    allowedStatuses: [409],
    body: { id: 'evt_matrix', object: 'event', type: 'invoice.paid', data: { object: {} } },
  },
];

export const MATRIX_ROUTES: MatrixRoute[] = [
  ...IDENTITY_ROUTES,
  ...WORKSPACE_ROUTES,
  ...FRAGMENT_ROUTES,
  ...LISTING_ROUTES,
  ...SEARCH_ROUTES,
  ...WEBHOOK_ROUTES,
  ...HOSTED_ZONE_ROUTES,
  ...FILE_ROUTES,
  ...CHAT_ROUTES,
  ...EXPERT_ROUTES,
  ...EMBED_CONFIG_ROUTES,
  ...AI_HELPER_ROUTES,
  ...PLAN_ROUTES,
  ...BILLING_ROUTES,
];
