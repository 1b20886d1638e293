import { describe, expect, it } from 'vitest';
import { ACTIONS, isWorkspaceAction, type Action } from './actions.js';
import { decide, decideAccount, type AccessInput } from './decide.js';
import { effectiveActions, roleAllows } from './effective-permissions.js';
import { PERMISSION_MATRIX } from './permission-matrix.js';
import {
  INVITATION_ROLES,
  RELATIONS,
  WORKSPACE_ROLES,
  effectiveRelation,
  isInvitationRole,
  type Relation,
} from './roles.js';

/**
 * The intended matrix, written out by hand (not derived from PERMISSION_MATRIX) so that a
 * change to the data is a deliberate change to this table too.
 * y = allowed, o = own content only, n = refused.
 */
type Cell = 'y' | 'o' | 'n';
//                                  owner collab contrib viewer subscr none
const EXPECTED: Record<string, [Cell, Cell, Cell, Cell, Cell, Cell]> = {
  'workspaces:read': ['y', 'y', 'y', 'y', 'y', 'n'],
  'workspaces:write': ['y', 'n', 'n', 'n', 'n', 'n'],
  'workspaces:delete': ['y', 'n', 'n', 'n', 'n', 'n'],
  'members:read': ['y', 'y', 'y', 'y', 'n', 'n'],
  'members:manage': ['y', 'n', 'n', 'n', 'n', 'n'],
  'fragments:read': ['y', 'y', 'y', 'y', 'y', 'n'],
  'fragments:write': ['y', 'y', 'o', 'n', 'n', 'n'],
  'fragments:delete': ['y', 'y', 'o', 'n', 'n', 'n'],
  'collections:read': ['y', 'y', 'y', 'y', 'y', 'n'],
  'collections:write': ['y', 'y', 'o', 'n', 'n', 'n'],
  'files:read': ['y', 'y', 'y', 'y', 'y', 'n'],
  'files:write': ['y', 'y', 'o', 'n', 'n', 'n'],
  'search:read': ['y', 'y', 'y', 'y', 'y', 'n'],
  'webhooks:manage': ['y', 'y', 'n', 'n', 'n', 'n'],
  'chat:use': ['y', 'y', 'y', 'y', 'y', 'n'],
};
const ACCOUNT_ACTIONS: Action[] = [
  'tokens:manage',
  'hosted-zones:manage',
  'profile:read',
  'profile:write',
  'vault:manage',
  'applications:manage',
  'admin',
];

const USER = 'user-1';
const OTHER = 'user-2';

function input(relation: Relation, action: Action, owner: string | undefined): AccessInput {
  return {
    auth: { userId: USER, scopes: ['*'], workspaceIds: [], allWorkspaces: true },
    account: { active: true },
    // Subscribers only exist on public workspaces; everyone else is checked on a private one.
    workspace: { id: 'ws-1', visibility: relation === 'subscriber' ? 'public' : 'private', archived: false },
    relation,
    action,
    resourceOwnerId: owner,
  };
}

describe('permission matrix', () => {
  it('covers every action: workspace actions in the table, the rest account-level', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(ACTIONS.filter(isWorkspaceAction).sort());
    expect(ACTIONS.filter((a) => !isWorkspaceAction(a)).sort()).toEqual([...ACCOUNT_ACTIONS].sort());
  });

  const cases = Object.entries(EXPECTED).flatMap(([action, cells]) =>
    RELATIONS.flatMap((relation, i) =>
      (['own', 'other', 'new'] as const).map((content) => ({
        action: action as Action,
        relation,
        content,
        cell: cells[i],
      })),
    ),
  );

  it.each(cases)('$relation × $action × $content content', ({ action, relation, content, cell }) => {
    const owner = content === 'own' ? USER : content === 'other' ? OTHER : undefined;
    const expected = cell === 'y' || (cell === 'o' && content !== 'other');
    const decision = decide(input(relation, action, owner));
    expect(decision.allowed).toBe(expected);
    if (decision.allowed) return;
    if (relation === 'none') {
      // A stranger to a private workspace is told it does not exist.
      expect(decision).toMatchObject({ status: 404, reason: 'not_a_member' });
    } else {
      expect(decision).toMatchObject({
        status: 403,
        code: 'FORBIDDEN',
        reason: cell === 'o' ? 'not_content_owner' : 'role_insufficient',
      });
    }
    expect(roleAllows(relation, action, content !== 'other')).toBe(expected);
  });

  it.each(ACCOUNT_ACTIONS)('%s does not depend on any workspace relation', (action) => {
    for (const relation of RELATIONS) {
      const viaWorkspace = decide({
        ...input(relation, action, undefined),
        account: { active: true, platformAdmin: true },
      });
      expect(viaWorkspace).toEqual({ allowed: true });
      expect(roleAllows(relation, action, true)).toBe(false);
    }
    expect(
      decideAccount({
        auth: input('none', action, undefined).auth,
        account: { active: true, platformAdmin: true },
        action,
      }),
    ).toEqual({ allowed: true });
  });

  it('ranks roles: each role can do at least what the next one down can', () => {
    const ladder: Relation[] = ['owner', 'collaborator', 'contributor', 'viewer', 'subscriber', 'none'];
    for (let i = 1; i < ladder.length; i++) {
      for (const own of [true, false]) {
        const higher = effectiveActions(ladder[i - 1], ['*'], own);
        expect(higher).toEqual(expect.arrayContaining(effectiveActions(ladder[i], ['*'], own)));
      }
    }
  });

  it('grants the owner every capability and a stranger none', () => {
    expect(PERMISSION_MATRIX.none).toEqual([]);
    expect(effectiveActions('owner', ['*'], false)).toEqual(ACTIONS.filter(isWorkspaceAction));
  });
});

describe('roles', () => {
  it('never invites an owner', () => {
    expect(INVITATION_ROLES).toEqual(['collaborator', 'contributor', 'viewer']);
    expect(isInvitationRole('owner')).toBe(false);
    expect(isInvitationRole('subscriber')).toBe(false);
    expect(isInvitationRole('viewer')).toBe(true);
    expect(WORKSPACE_ROLES).toContain('owner');
  });

  it('treats strangers of public workspaces as subscribers, and subscribers of private ones as strangers', () => {
    expect(effectiveRelation('none', 'public')).toBe('subscriber');
    expect(effectiveRelation('subscriber', 'private')).toBe('none');
    for (const role of WORKSPACE_ROLES) {
      expect(effectiveRelation(role, 'public')).toBe(role);
      expect(effectiveRelation(role, 'private')).toBe(role);
    }
  });
});
