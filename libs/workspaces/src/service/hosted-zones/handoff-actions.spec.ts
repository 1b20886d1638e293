import { describe, expect, it } from 'vitest';
import { ACTIONS, decide, type Action, type CallerAuth, type Relation } from '@kw/platform-access-policy';
import { HANDOFF_ACTIONS, handoffActions } from './handoff-actions.js';

const WS = { id: 'ws-1', visibility: 'private' as const, archived: false };
const account = { active: true };
const auth = (fields: Partial<CallerAuth> = {}): CallerAuth => ({
  userId: 'u1',
  scopes: ['*'],
  workspaceIds: [],
  allWorkspaces: true,
  ...fields,
});

describe('handoff actions', () => {
  it('are the data-plane actions without files', () => {
    expect(HANDOFF_ACTIONS.some((a) => a.startsWith('files:'))).toBe(false);
    expect([...HANDOFF_ACTIONS]).toEqual([
      'workspaces:write',
      'fragments:read',
      'fragments:write',
      'fragments:delete',
      'collections:read',
      'collections:write',
      'search:read',
      'webhooks:manage',
    ]);
  });

  it.each([
    [
      'owner',
      [
        'workspaces:write',
        'fragments:read',
        'fragments:write',
        'fragments:delete',
        'collections:read',
        'collections:write',
        'search:read',
        'webhooks:manage',
      ],
    ],
    [
      'collaborator',
      [
        'fragments:read',
        'fragments:write',
        'fragments:delete',
        'collections:read',
        'collections:write',
        'search:read',
        'webhooks:manage',
      ],
    ],
    [
      'contributor',
      ['fragments:read', 'fragments:write', 'fragments:delete', 'collections:read', 'collections:write', 'search:read'],
    ],
    ['viewer', ['fragments:read', 'collections:read', 'search:read']],
  ] as [Relation, Action[]][])('for a %s with a full token: %j', (relation, expected) => {
    expect(handoffActions({ auth: auth(), account, workspace: WS, relation })).toEqual(expected);
  });

  it('are exactly what decide() allows, for every role and every scope subset tried', () => {
    const scopeSets: string[][] = [
      ['*'],
      ['fragments:read'],
      ['fragments:read', 'fragments:write', 'files:read'],
      ['search:read', 'webhooks:manage'],
      ['workspaces:read'],
      ['files:read', 'files:write'],
    ];
    for (const relation of ['owner', 'collaborator', 'contributor', 'viewer', 'subscriber', 'none'] as Relation[]) {
      for (const scopes of scopeSets) {
        const input = {
          auth: auth({ scopes }),
          account,
          workspace: relation === 'subscriber' ? { ...WS, visibility: 'public' as const } : WS,
          relation,
        };
        const got = handoffActions(input);
        const allowed = ACTIONS.filter(
          (action) => HANDOFF_ACTIONS.includes(action) && decide({ ...input, action }).allowed,
        );
        expect(got, `${relation} ${scopes.join(',')}`).toEqual(allowed);
        // Never more than the token's scopes, never files.
        for (const a of got) expect(scopes.includes('*') || scopes.includes(a)).toBe(true);
        expect(got.some((a) => a.startsWith('files:'))).toBe(false);
      }
    }
  });

  it('intersect a restricted token with the role: a viewer token with write scopes still only reads', () => {
    expect(
      handoffActions({
        auth: auth({ scopes: ['fragments:read', 'fragments:write'] }),
        account,
        workspace: WS,
        relation: 'viewer',
      }),
    ).toEqual(['fragments:read']);
    expect(
      handoffActions({
        auth: auth({ scopes: ['fragments:write', 'search:read'] }),
        account,
        workspace: WS,
        relation: 'owner',
      }),
    ).toEqual(['fragments:write', 'search:read']);
  });

  it('are empty for a token restricted to other workspaces, and on an archived workspace', () => {
    expect(
      handoffActions({
        auth: auth({ allWorkspaces: false, workspaceIds: ['ws-2'] }),
        account,
        workspace: WS,
        relation: 'owner',
      }),
    ).toEqual([]);
    expect(handoffActions({ auth: auth(), account, workspace: { ...WS, archived: true }, relation: 'owner' })).toEqual(
      [],
    );
  });
});
