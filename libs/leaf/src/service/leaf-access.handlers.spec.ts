import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { AuthContextSchema, ResolveAccessRequestSchema, ListAccessibleWorkspacesRequestSchema } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import type { LeafStateRepository } from '../persistence/leaf-state.repository.js';
import { LeafAccessHandlers } from './leaf-access.handlers.js';

const HERE = randomUUID();
const ALSO_HERE = randomUUID();
const ELSEWHERE = randomUUID();

const store = {
  isProvisioned: (id: string) => id === HERE || id === ALSO_HERE,
  isFrozen: (id: string) => id === ALSO_HERE,
  workspaces: () => [
    { id: HERE, name: 'Here' },
    { id: ALSO_HERE, name: 'Also here' },
  ],
} as unknown as LeafStateRepository;
const handlers = new LeafAccessHandlers(store);

const context = (
  overrides: { credentialKind?: string; workspaceIds?: string[]; workspaceRole?: string } = {},
): RequestContext => ({
  requestId: 'r',
  auth: create(AuthContextSchema, {
    userId: randomUUID(),
    credentialId: randomUUID(),
    credentialKind: 'handoff',
    scopes: ['fragments:read'],
    workspaceIds: [HERE],
    allWorkspaces: false,
    workspaceRole: 'viewer',
    ...overrides,
  }),
});
const resolve = (workspaceId: string, ctx: RequestContext) =>
  handlers.resolveAccess(create(ResolveAccessRequestSchema, { workspaceId }), ctx);

describe("the Leaf's ResolveAccess", () => {
  it("finds the token's workspace with the token's role, private, not archived, not hosted elsewhere", () => {
    expect(resolve(HERE, context({ workspaceRole: 'collaborator' }))).toEqual({
      found: true,
      relation: 'collaborator',
      visibility: 'private',
      archived: false,
      hostedZoneId: '',
      status: 'active',
      endpointUrl: '',
    });
  });

  it("answers a subscriber's workspace as public: the Cloud signs subscriber tokens only for public workspaces", () => {
    expect(resolve(HERE, context({ workspaceRole: 'subscriber' }))).toMatchObject({
      found: true,
      relation: 'subscriber',
      visibility: 'public',
    });
  });

  it('answers a workspace moving out of the zone as "moving": the gate serves it read-only', () => {
    expect(resolve(ALSO_HERE, context({ workspaceIds: [ALSO_HERE] }))).toMatchObject({ found: true, status: 'moving' });
  });

  it('does not find a workspace the token does not name, even one provisioned here', () => {
    expect(resolve(ALSO_HERE, context())).toEqual({ found: false, relation: 'none' });
  });

  it('does not find a workspace that is not provisioned here, even if the token names it', () => {
    expect(resolve(ELSEWHERE, context({ workspaceIds: [ELSEWHERE] }))).toEqual({ found: false, relation: 'none' });
  });

  it('does not find anything for a caller without a handoff token or a known role', () => {
    expect(resolve(HERE, { requestId: 'r' })).toEqual({ found: false, relation: 'none' });
    expect(resolve(HERE, context({ credentialKind: 'pat' }))).toEqual({ found: false, relation: 'none' });
    expect(resolve(HERE, context({ workspaceRole: '' }))).toEqual({ found: false, relation: 'none' });
  });

  it("lists only the token's workspaces that are provisioned here", () => {
    const { workspaces } = handlers.listAccessibleWorkspaces(
      create(ListAccessibleWorkspacesRequestSchema, {}),
      context({ workspaceIds: [HERE, ELSEWHERE] }),
    );
    expect(workspaces.map((w) => w.id)).toEqual([HERE]);
    expect(workspaces[0]).toMatchObject({ name: 'Here', relation: 'viewer', visibility: 'private' });
  });
});
