import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denialError } from './assert-allowed.js';
import { ACTIONS, isWorkspaceAction, type Action } from './actions.js';
import { decide, WORKSPACE_NOT_FOUND_MESSAGE, type AccessInput } from './decide.js';
import { effectiveActions, roleAllows } from './effective-permissions.js';
import { PERMISSION_MATRIX } from './permission-matrix.js';
import { RELATIONS, effectiveRelation, type Relation } from './roles.js';
import { VALID_SCOPES, scopeAllows } from './scopes.js';

const USER = 'user-1';
const OTHER = 'user-2';
const WORKSPACES = ['ws-1', 'ws-2'];

const arbScopes = fc.uniqueArray(fc.constantFrom(...VALID_SCOPES, 'bogus', 'fragments:*', ''), { maxLength: 8 });
const arbAction = fc.constantFrom(...ACTIONS);
const arbRelation = fc.constantFrom(...RELATIONS);

const arbInput: fc.Arbitrary<AccessInput> = fc
  .record({
    auth: fc.option(
      fc.record({
        userId: fc.constantFrom(USER, USER, USER, ''),
        scopes: arbScopes,
        workspaceIds: fc.subarray(WORKSPACES),
        allWorkspaces: fc.boolean(),
      }),
      { nil: undefined, freq: 10 },
    ),
    // Biased towards valid callers so that the 404/403/allowed branches are well covered.
    account: fc.option(fc.record({ active: fc.constantFrom(true, true, true, false), platformAdmin: fc.boolean() }), {
      nil: undefined,
      freq: 10,
    }),
    workspace: fc.option(
      fc.record({
        id: fc.constantFrom(...WORKSPACES),
        visibility: fc.constantFrom('private' as const, 'public' as const),
        archived: fc.boolean(),
      }),
      { nil: undefined },
    ),
    relation: arbRelation,
    action: arbAction,
    resourceOwnerId: fc.constantFrom(undefined, USER, OTHER),
    restoring: fc.boolean(),
  })
  // `restoring` is only meaningful (and only accepted) with the archive action.
  .map((i) => ({ ...i, restoring: i.restoring && i.action === 'workspaces:delete' }));

const ownContent = (i: AccessInput) => i.resourceOwnerId === undefined || i.resourceOwnerId === i.auth?.userId;
const RUNS = { numRuns: 5000 };

describe('decide (properties)', () => {
  it('never allows more than the token scope, nor more than the role', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        if (!decide(i).allowed) return;
        expect(scopeAllows(i.auth!.scopes, i.action)).toBe(true);
        if (!isWorkspaceAction(i.action)) return;
        const relation = effectiveRelation(i.relation, i.workspace!.visibility);
        if (i.restoring) expect(PERMISSION_MATRIX[relation]).toContain('restoreWorkspace');
        else expect(roleAllows(relation, i.action, ownContent(i))).toBe(true);
      }),
      RUNS,
    );
  });

  it('allows exactly scope ∩ role once the caller and the workspace are established', () => {
    fc.assert(
      fc.property(
        arbScopes,
        arbRelation,
        arbAction.filter(isWorkspaceAction),
        fc.boolean(),
        (scopes, relation, action, own) => {
          const i: AccessInput = {
            auth: { userId: USER, scopes, workspaceIds: [], allWorkspaces: true },
            account: { active: true },
            workspace: { id: 'ws-1', visibility: relation === 'subscriber' ? 'public' : 'private', archived: false },
            relation,
            action,
            resourceOwnerId: own ? USER : OTHER,
          };
          expect(decide(i).allowed).toBe(scopeAllows(scopes, action) && roleAllows(relation, action, own));
          expect(effectiveActions(relation, scopes, own).includes(action)).toBe(decide(i).allowed);
        },
      ),
      RUNS,
    );
  });

  it('answers 401, then 404, then 403, in that order of precedence', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        const d = decide(i);
        const unauthenticated = !i.auth || !i.auth.userId || !i.account?.active;
        if (unauthenticated) {
          expect(d).toMatchObject({ allowed: false, status: 401 });
          return;
        }
        if (!isWorkspaceAction(i.action)) {
          expect(d.allowed || d.status === 403).toBe(true);
          return;
        }
        const ws = i.workspace;
        const hidden =
          !ws ||
          (ws.archived && !i.restoring) ||
          (!i.auth!.allWorkspaces && !i.auth!.workspaceIds.includes(ws.id)) ||
          effectiveRelation(i.relation, ws.visibility) === 'none';
        if (hidden) expect(d).toMatchObject({ allowed: false, status: 404 });
        else expect(d.allowed || d.status === 403).toBe(true);
      }),
      RUNS,
    );
  });

  it('gives every 404 the same error body', () => {
    const expected = JSON.stringify({ status: 404, code: 'NOT_FOUND', message: WORKSPACE_NOT_FOUND_MESSAGE });
    fc.assert(
      fc.property(arbInput, (i) => {
        const d = decide(i);
        if (d.allowed || d.status !== 404) return;
        expect(JSON.stringify(denialError(d).toJSON())).toBe(expected);
      }),
      RUNS,
    );
  });

  it('never takes a permission away when a scope is added or the role rises', () => {
    const ladder: Relation[] = ['none', 'subscriber', 'viewer', 'contributor', 'collaborator', 'owner'];
    fc.assert(
      fc.property(arbInput, fc.constantFrom<string>(...VALID_SCOPES), (i, extra) => {
        if (!decide(i).allowed || !i.auth) return;
        expect(decide({ ...i, auth: { ...i.auth, scopes: [...i.auth.scopes, extra] } }).allowed).toBe(true);
        const higher = ladder.slice(ladder.indexOf(i.relation));
        for (const relation of higher) expect(decide({ ...i, relation }).allowed).toBe(true);
      }),
      RUNS,
    );
  });

  it('effectiveActions is always within both the scope and the role', () => {
    fc.assert(
      fc.property(arbRelation, arbScopes, fc.boolean(), (relation, scopes, own) => {
        for (const action of effectiveActions(relation, scopes, own) as Action[]) {
          expect(scopeAllows(scopes, action)).toBe(true);
          expect(roleAllows(relation, action, own)).toBe(true);
        }
      }),
      RUNS,
    );
  });
});
