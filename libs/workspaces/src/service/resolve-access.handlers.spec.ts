import { describe, expect, it } from 'vitest';
import type { RequestContext } from '@kw/platform-context';
import type { WorkspacesDb } from '../persistence/workspaces-database.js';
import type { WorkspaceMovesRepository } from '../persistence/workspace-moves.repository.js';
import { WorkspacesRepository } from '../persistence/workspaces.repository.js';
import { ResolveAccessHandlers } from './resolve-access.handlers.js';
import { WorkspaceAccess } from './workspace-access.js';

const WS = '11111111-1111-4111-8111-111111111111';
const USER = '22222222-2222-4222-8222-222222222222';

/** A database whose one statement (WorkspaceAccess.load) answers this workspace joined with the caller's membership. */
function handlerWith(row: ReturnType<typeof workspace> | null) {
  const joined =
    row &&
    (({ members, subscriptions, ...w }) => ({
      ...w,
      endpointUrl: null,
      hasZone: false,
      role: members[0]?.role ?? null,
      subscribed: subscriptions.length > 0,
    }))(row);
  const database = { pool: { query: async () => ({ rows: joined ? [joined] : [] }) } } as never;
  const moves = { unfinished: async () => null } as unknown as WorkspaceMovesRepository;
  return new ResolveAccessHandlers(new WorkspaceAccess(new WorkspacesRepository({} as WorkspacesDb, database)), moves);
}

function workspace(
  fields: { visibility?: string; archivedAt?: Date | null; role?: string; subscribed?: boolean } = {},
) {
  return {
    id: WS,
    name: 'w',
    description: '',
    visibility: fields.visibility ?? 'private',
    status: 'active',
    hostedZoneId: null,
    settings: {},
    createdBy: USER,
    createdAt: new Date(),
    updatedAt: new Date(),
    archivedAt: fields.archivedAt ?? null,
    members: fields.role ? [{ workspaceId: WS, userId: USER, role: fields.role, createdAt: new Date() }] : [],
    subscriptions: fields.subscribed ? [{ workspaceId: WS, userId: USER, createdAt: new Date() }] : [],
  };
}

const context = (auth: Partial<RequestContext['auth']> = {}): RequestContext =>
  ({
    requestId: 'r',
    auth: {
      userId: USER,
      credentialId: 'c',
      credentialKind: 'pat',
      scopes: ['*'],
      workspaceIds: [],
      allWorkspaces: true,
      ...auth,
    },
  }) as RequestContext;

describe('ResolveAccess', () => {
  it('reports a member with the stored relation', async () => {
    const answer = await handlerWith(workspace({ role: 'viewer' })).resolve({ workspaceId: WS } as never, context());
    expect(answer).toEqual({
      found: true,
      relation: 'viewer',
      visibility: 'private',
      archived: false,
      hostedZoneId: '',
      status: 'active',
      endpointUrl: '',
      // Its creator's plan sets its limits (docs/plans.md).
      planHolderId: USER,
      moveImport: false,
      // No settings stored: the defaults.
      enrichment: { summaries: true, tags: true },
    });
  });

  it("carries the workspace's enrichment settings", async () => {
    const row = { ...workspace({ role: 'viewer' }), settings: { enrichment: { summaries: false } } };
    const answer = await handlerWith(row).resolve({ workspaceId: WS } as never, context());
    expect(answer.enrichment).toEqual({ summaries: false, tags: true });
  });

  it('hides a private workspace from a non-member, a missing one and a malformed id', async () => {
    expect(await handlerWith(workspace()).resolve({ workspaceId: WS } as never, context())).toEqual({
      found: false,
      relation: 'none',
    });
    expect(await handlerWith(null).resolve({ workspaceId: WS } as never, context())).toEqual({
      found: false,
      relation: 'none',
    });
    expect(await handlerWith(workspace({ role: 'owner' })).resolve({ workspaceId: 'x' } as never, context())).toEqual({
      found: false,
      relation: 'none',
    });
  });

  it('hides a workspace outside the token, and from anonymous callers', async () => {
    const row = workspace({ role: 'owner' });
    expect(
      (
        await handlerWith(row).resolve(
          { workspaceId: WS } as never,
          context({ allWorkspaces: false, workspaceIds: [] }),
        )
      ).found,
    ).toBe(false);
    expect((await handlerWith(row).resolve({ workspaceId: WS } as never, { requestId: 'r' })).found).toBe(false);
  });

  it('shows a public workspace to anyone (relation none), even with a token lacking the read scope', async () => {
    const answer = await handlerWith(workspace({ visibility: 'public' })).resolve(
      { workspaceId: WS } as never,
      context({ scopes: ['fragments:read'] }),
    );
    expect(answer).toMatchObject({ found: true, relation: 'none', visibility: 'public' });
  });

  it('reports an archived workspace to its owners only', async () => {
    const archivedAt = new Date();
    expect(
      await handlerWith(workspace({ role: 'owner', archivedAt })).resolve({ workspaceId: WS } as never, context()),
    ).toMatchObject({ found: true, archived: true });
    expect(
      (await handlerWith(workspace({ role: 'viewer', archivedAt })).resolve({ workspaceId: WS } as never, context()))
        .found,
    ).toBe(false);
  });
});
