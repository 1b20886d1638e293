import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { AuthContextSchema } from '@kw/contracts';
import { AppError, notFound } from '@kw/platform-errors';
import { assertAccountAllowed, assertAllowed, denialError } from './assert-allowed.js';
import {
  decide,
  decideAccount,
  WORKSPACE_NOT_FOUND_MESSAGE,
  type AccessInput,
  type CallerAuth,
  type Decision,
} from './decide.js';

const USER = 'user-1';
const WS = 'ws-1';

/** A member with a full token on an active private workspace: every test changes one thing. */
function input(overrides: Partial<AccessInput> = {}): AccessInput {
  return {
    auth: { userId: USER, scopes: ['*'], workspaceIds: [], allWorkspaces: true },
    account: { active: true },
    workspace: { id: WS, visibility: 'private', archived: false },
    relation: 'owner',
    action: 'fragments:read',
    ...overrides,
  };
}
const auth = (over: Partial<CallerAuth>): CallerAuth => ({
  userId: USER,
  scopes: ['*'],
  workspaceIds: [],
  allWorkspaces: true,
  ...over,
});
const reason = (d: Decision) => (d.allowed ? 'allowed' : `${d.status} ${d.reason}`);

describe('decide: authentication (401)', () => {
  it('refuses a call without auth context, or an anonymous one', () => {
    expect(decide(input({ auth: undefined }))).toMatchObject({
      allowed: false,
      status: 401,
      code: 'UNAUTHENTICATED',
      reason: 'unauthenticated',
    });
    expect(reason(decide(input({ auth: auth({ userId: '' }) })))).toBe('401 unauthenticated');
  });

  it('refuses an inactive or unknown account even with a valid token', () => {
    expect(reason(decide(input({ account: { active: false } })))).toBe('401 account_inactive');
    expect(reason(decide(input({ account: undefined })))).toBe('401 account_inactive');
  });

  it('answers 401 before anything about the workspace', () => {
    const worst = { workspace: undefined, relation: 'none' as const, action: 'fragments:delete' as const };
    expect(reason(decide(input({ ...worst, auth: undefined })))).toBe('401 unauthenticated');
    expect(reason(decide(input({ ...worst, account: { active: false } })))).toBe('401 account_inactive');
  });
});

describe('decide: visibility (404)', () => {
  it('hides missing and archived workspaces', () => {
    expect(reason(decide(input({ workspace: undefined })))).toBe('404 workspace_not_found');
    expect(reason(decide(input({ workspace: { id: WS, visibility: 'private', archived: true } })))).toBe(
      '404 workspace_archived',
    );
    expect(reason(decide(input({ workspace: { id: WS, visibility: 'public', archived: true } })))).toBe(
      '404 workspace_archived',
    );
  });

  it('hides workspaces outside the token, even from their owner', () => {
    const restricted = auth({ allWorkspaces: false, workspaceIds: ['ws-other'] });
    expect(reason(decide(input({ auth: restricted })))).toBe('404 workspace_outside_token');
    expect(decide(input({ auth: auth({ allWorkspaces: false, workspaceIds: ['ws-other', WS] }) }))).toEqual({
      allowed: true,
    });
  });

  it('treats an empty workspace list as "no workspace", never as "all"', () => {
    expect(reason(decide(input({ auth: auth({ allWorkspaces: false, workspaceIds: [] }) })))).toBe(
      '404 workspace_outside_token',
    );
  });

  it('hides a private workspace from strangers and from stale subscribers', () => {
    expect(reason(decide(input({ relation: 'none' })))).toBe('404 not_a_member');
    expect(reason(decide(input({ relation: 'subscriber' })))).toBe('404 not_a_member');
  });

  it('answers 404 before any 403, so a stranger learns nothing', () => {
    const noScope = auth({ scopes: ['profile:read'] });
    expect(reason(decide(input({ relation: 'none', auth: noScope, action: 'fragments:delete' })))).toBe(
      '404 not_a_member',
    );
    expect(reason(decide(input({ workspace: undefined, auth: noScope })))).toBe('404 workspace_not_found');
    expect(reason(decide(input({ auth: auth({ scopes: [], allWorkspaces: false, workspaceIds: ['x'] }) })))).toBe(
      '404 workspace_outside_token',
    );
  });

  it('gives every 404 the same message, whatever the reason', () => {
    const denials = [
      decide(input({ workspace: undefined })),
      decide(input({ workspace: { id: WS, visibility: 'private', archived: true } })),
      decide(input({ auth: auth({ allWorkspaces: false, workspaceIds: [] }) })),
      decide(input({ relation: 'none' })),
    ];
    for (const d of denials)
      expect(d).toMatchObject({ status: 404, code: 'NOT_FOUND', message: WORKSPACE_NOT_FOUND_MESSAGE });
  });
});

describe('decide: public workspaces', () => {
  const publicWs = { id: WS, visibility: 'public' as const, archived: false };

  it('lets any signed-in user read, subscribed or not', () => {
    for (const relation of ['none', 'subscriber'] as const) {
      for (const action of [
        'workspaces:read',
        'fragments:read',
        'collections:read',
        'files:read',
        'search:read',
        'chat:use',
      ] as const) {
        expect(decide(input({ workspace: publicWs, relation, action }))).toEqual({ allowed: true });
      }
    }
  });

  it('refuses writes and the member list to non-members with 403 (the workspace is not secret)', () => {
    for (const relation of ['none', 'subscriber'] as const) {
      expect(reason(decide(input({ workspace: publicWs, relation, action: 'fragments:write' })))).toBe(
        '403 role_insufficient',
      );
      expect(reason(decide(input({ workspace: publicWs, relation, action: 'members:read' })))).toBe(
        '403 role_insufficient',
      );
      expect(reason(decide(input({ workspace: publicWs, relation, action: 'webhooks:manage' })))).toBe(
        '403 role_insufficient',
      );
    }
  });

  it('still applies the token scope and the token workspace restriction', () => {
    expect(
      reason(decide(input({ workspace: publicWs, relation: 'none', auth: auth({ scopes: ['profile:read'] }) }))),
    ).toBe('403 scope_missing');
    expect(
      reason(
        decide(
          input({ workspace: publicWs, relation: 'none', auth: auth({ allWorkspaces: false, workspaceIds: ['x'] }) }),
        ),
      ),
    ).toBe('404 workspace_outside_token');
  });

  it('gives members of a public workspace their role, not just read', () => {
    expect(
      decide(
        input({
          workspace: publicWs,
          relation: 'collaborator',
          action: 'fragments:delete',
          resourceOwnerId: 'someone',
        }),
      ),
    ).toEqual({ allowed: true });
  });
});

describe('decide: scope and role (403)', () => {
  it('checks the token scope before the role', () => {
    const readOnly = auth({ scopes: ['fragments:read'] });
    expect(reason(decide(input({ auth: readOnly, relation: 'viewer', action: 'fragments:write' })))).toBe(
      '403 scope_missing',
    );
    expect(reason(decide(input({ relation: 'viewer', action: 'fragments:write' })))).toBe('403 role_insufficient');
  });

  it('intersects scope and role: a viewer with a write token cannot write, an owner with a read token cannot either', () => {
    const writer = auth({ scopes: ['fragments:write', 'fragments:read'] });
    expect(reason(decide(input({ auth: writer, relation: 'viewer', action: 'fragments:write' })))).toBe(
      '403 role_insufficient',
    );
    expect(decide(input({ auth: writer, relation: 'viewer', action: 'fragments:read' }))).toEqual({ allowed: true });
    const reader = auth({ scopes: ['fragments:read'] });
    expect(reason(decide(input({ auth: reader, relation: 'owner', action: 'fragments:write' })))).toBe(
      '403 scope_missing',
    );
  });

  it('ignores unknown scopes', () => {
    expect(reason(decide(input({ auth: auth({ scopes: ['fragments:*', 'all', 'FRAGMENTS:READ'] }) })))).toBe(
      '403 scope_missing',
    );
  });

  it("lets a contributor create content and change its own, never someone else's", () => {
    const contributor = { relation: 'contributor' as const };
    expect(decide(input({ ...contributor, action: 'fragments:write' }))).toEqual({ allowed: true });
    expect(decide(input({ ...contributor, action: 'fragments:write', resourceOwnerId: USER }))).toEqual({
      allowed: true,
    });
    expect(decide(input({ ...contributor, action: 'fragments:delete', resourceOwnerId: USER }))).toEqual({
      allowed: true,
    });
    expect(reason(decide(input({ ...contributor, action: 'fragments:write', resourceOwnerId: 'user-2' })))).toBe(
      '403 not_content_owner',
    );
    expect(reason(decide(input({ ...contributor, action: 'files:write', resourceOwnerId: 'user-2' })))).toBe(
      '403 not_content_owner',
    );
  });

  it('does not call a viewer\'s refusal "not yours": the role cannot write at all', () => {
    expect(reason(decide(input({ relation: 'viewer', action: 'fragments:write', resourceOwnerId: 'user-2' })))).toBe(
      '403 role_insufficient',
    );
  });
});

describe('decide: archive and restore', () => {
  const archived = { id: WS, visibility: 'private' as const, archived: true };

  it('lets only the owner restore an archived workspace', () => {
    expect(decide(input({ workspace: archived, action: 'workspaces:delete', restoring: true }))).toEqual({
      allowed: true,
    });
    expect(
      reason(
        decide(input({ workspace: archived, relation: 'collaborator', action: 'workspaces:delete', restoring: true })),
      ),
    ).toBe('403 role_insufficient');
    expect(
      reason(decide(input({ workspace: archived, relation: 'none', action: 'workspaces:delete', restoring: true }))),
    ).toBe('404 not_a_member');
    expect(
      reason(
        decide(
          input({
            workspace: archived,
            action: 'workspaces:delete',
            restoring: true,
            auth: auth({ scopes: ['workspaces:read'] }),
          }),
        ),
      ),
    ).toBe('403 scope_missing');
  });

  it('allows nothing else on an archived workspace, not even the owner reading it', () => {
    expect(reason(decide(input({ workspace: archived, action: 'workspaces:read' })))).toBe('404 workspace_archived');
    expect(reason(decide(input({ workspace: archived, action: 'workspaces:delete' })))).toBe('404 workspace_archived');
  });

  it('refuses "restoring" with any other action as a programming error', () => {
    expect(() => decide(input({ workspace: archived, action: 'fragments:read', restoring: true }))).toThrow(
      /workspaces:delete/,
    );
  });
});

describe('decideAccount', () => {
  const base = { auth: auth({}), account: { active: true } };

  it('checks caller, then scope', () => {
    expect(decideAccount({ ...base, action: 'tokens:manage' })).toEqual({ allowed: true });
    expect(reason(decideAccount({ ...base, auth: undefined, action: 'tokens:manage' }))).toBe('401 unauthenticated');
    expect(reason(decideAccount({ ...base, account: { active: false }, action: 'tokens:manage' }))).toBe(
      '401 account_inactive',
    );
    expect(reason(decideAccount({ ...base, auth: auth({ scopes: ['profile:read'] }), action: 'profile:write' }))).toBe(
      '403 scope_missing',
    );
  });

  it('serves the account-wide form of workspace actions (create or list workspaces) with the scope alone', () => {
    expect(
      decideAccount({ ...base, auth: auth({ scopes: ['workspaces:write'] }), action: 'workspaces:write' }),
    ).toEqual({ allowed: true });
    expect(
      reason(decideAccount({ ...base, auth: auth({ scopes: ['workspaces:read'] }), action: 'workspaces:write' })),
    ).toBe('403 scope_missing');
  });

  it('requires a platform administrator account for admin, whatever the token says', () => {
    expect(reason(decideAccount({ ...base, action: 'admin' }))).toBe('403 platform_admin_required');
    expect(decideAccount({ ...base, account: { active: true, platformAdmin: true }, action: 'admin' })).toEqual({
      allowed: true,
    });
    expect(
      reason(
        decideAccount({
          auth: auth({ scopes: ['profile:read'] }),
          account: { active: true, platformAdmin: true },
          action: 'admin',
        }),
      ),
    ).toBe('403 scope_missing');
  });

  it('is what decide applies to account-level actions, ignoring the workspace', () => {
    expect(decide(input({ workspace: undefined, relation: 'none', action: 'vault:manage' }))).toEqual({
      allowed: true,
    });
    expect(reason(decide(input({ workspace: undefined, action: 'admin' })))).toBe('403 platform_admin_required');
  });
});

describe('assertAllowed', () => {
  it('returns quietly when allowed', () => {
    expect(() => assertAllowed(input())).not.toThrow();
    expect(() =>
      assertAccountAllowed({ auth: auth({}), account: { active: true }, action: 'profile:read' }),
    ).not.toThrow();
  });

  function thrown(fn: () => void): AppError {
    try {
      fn();
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
    throw new Error('expected an AppError');
  }

  it('throws 404s byte-identical to the generic "Workspace not found", whatever the reason', () => {
    const generic = JSON.stringify(notFound('Workspace').toJSON());
    const cases: Partial<AccessInput>[] = [
      { workspace: undefined },
      { workspace: { id: WS, visibility: 'private', archived: true } },
      { auth: auth({ allWorkspaces: false, workspaceIds: ['other'] }) },
      { relation: 'none' },
      { relation: 'subscriber', action: 'fragments:delete' },
    ];
    for (const c of cases) expect(JSON.stringify(thrown(() => assertAllowed(input(c))).toJSON())).toBe(generic);
  });

  it('throws 401 and 403 with stable codes and a message', () => {
    expect(thrown(() => assertAllowed(input({ auth: undefined })))).toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
      message: 'Authentication required',
    });
    expect(thrown(() => assertAllowed(input({ relation: 'viewer', action: 'members:manage' })))).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      message: "Your role in this workspace does not allow 'members:manage'",
    });
    expect(
      thrown(() =>
        assertAccountAllowed({ auth: auth({ scopes: [] }), account: { active: true }, action: 'tokens:manage' }),
      ),
    ).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      message: "The credential lacks the 'tokens:manage' scope",
    });
  });

  it('maps a denial without adding details', () => {
    const d = decide(input({ relation: 'viewer', action: 'fragments:write' }));
    if (d.allowed) throw new Error('expected a denial');
    expect(denialError(d).details).toBeUndefined();
  });
});

describe('the generated AuthContext', () => {
  it('is accepted as the caller', () => {
    const ctx = create(AuthContextSchema, {
      userId: USER,
      credentialId: 'pat-1',
      credentialKind: 'pat',
      scopes: ['fragments:read'],
      workspaceIds: [WS],
    });
    expect(decide(input({ auth: ctx }))).toEqual({ allowed: true });
    expect(reason(decide(input({ auth: ctx, action: 'fragments:write' })))).toBe('403 scope_missing');
    // Proto default for all_workspaces is false: an unset restriction means "only the listed ones".
    expect(reason(decide(input({ auth: create(AuthContextSchema, { userId: USER, scopes: ['*'] }) })))).toBe(
      '404 workspace_outside_token',
    );
  });
});
