import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { ACTIONS, ACTION_DEFINITIONS } from './actions.js';
import { VALID_SCOPES, narrowScopes, narrowWorkspaces, scopeAllows, validateScopes } from './scopes.js';

describe('scope vocabulary', () => {
  it('is the documented list, each with a description', () => {
    expect(ACTIONS).toEqual([
      'workspaces:read',
      'workspaces:write',
      'workspaces:delete',
      'members:read',
      'members:manage',
      'fragments:read',
      'fragments:write',
      'fragments:delete',
      'collections:read',
      'collections:write',
      'files:read',
      'files:write',
      'search:read',
      'webhooks:manage',
      'tokens:manage',
      'hosted-zones:manage',
      'profile:read',
      'profile:write',
      'chat:use',
      'vault:manage',
      'applications:manage',
      'admin',
    ]);
    for (const a of ACTIONS) expect(ACTION_DEFINITIONS[a].description.length).toBeGreaterThan(10);
    expect(VALID_SCOPES).toEqual(['*', ...ACTIONS]);
  });

  it('lets `*` stand for every action', () => {
    for (const a of ACTIONS) expect(scopeAllows(['*'], a)).toBe(true);
    expect(scopeAllows(['fragments:read'], 'fragments:write')).toBe(false);
    expect(scopeAllows([], 'profile:read')).toBe(false);
  });
});

describe('validateScopes', () => {
  it('returns known scopes without duplicates', () => {
    expect(validateScopes(['fragments:read', '*', 'fragments:read'])).toEqual(['fragments:read', '*']);
  });

  it('refuses unknown scopes, naming them and listing the valid ones', () => {
    let error: unknown;
    try {
      validateScopes(['fragments:read', 'fragments:*', 42]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    expect(e).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', param: 'scopes' });
    expect(e.message).toContain("'fragments:*'");
    expect(e.message).toContain('42');
    expect(e.message).toContain(VALID_SCOPES.join(', '));
    expect(e.details).toMatchObject({ validScopes: VALID_SCOPES, fields: [{ field: 'scopes' }] });
  });

  it('refuses an empty list', () => {
    expect(() => validateScopes([])).toThrow(/at least one scope/);
  });
});

describe('narrowScopes', () => {
  it('keeps what both the request and the creator have', () => {
    expect(narrowScopes(['fragments:read', 'fragments:write'], ['fragments:read', 'search:read'])).toEqual({
      scopes: ['fragments:read'],
      dropped: ['fragments:write'],
    });
  });

  it('keeps `*` only when the creator has `*`', () => {
    expect(narrowScopes(['*'], ['*'])).toEqual({ scopes: ['*'], dropped: [] });
    const narrowed = narrowScopes(['*'], ['search:read', 'fragments:read']);
    expect(narrowed.scopes).toEqual(['fragments:read', 'search:read']);
    expect(narrowed.dropped).toHaveLength(ACTIONS.length - 2);
  });

  it('turns explicit scopes of a `*` creator into the same explicit list, in vocabulary order', () => {
    expect(narrowScopes(['search:read', 'admin', 'fragments:read'], ['*'])).toEqual({
      scopes: ['fragments:read', 'search:read', 'admin'],
      dropped: [],
    });
  });

  it('never gives a token a scope its creator lacks, nor one that was not asked for', () => {
    const arb = fc.uniqueArray(fc.constantFrom(...VALID_SCOPES), { maxLength: 10 });
    fc.assert(
      fc.property(arb, arb, (requested, granted) => {
        const { scopes, dropped } = narrowScopes(requested, granted);
        for (const action of ACTIONS) {
          if (!scopeAllows(scopes, action)) continue;
          expect(scopeAllows(granted, action)).toBe(true);
          expect(scopeAllows(requested, action)).toBe(true);
        }
        for (const action of dropped) {
          expect(scopeAllows(requested, action)).toBe(true);
          expect(scopeAllows(granted, action)).toBe(false);
        }
        // Nothing requested and held is lost.
        for (const action of ACTIONS) {
          if (scopeAllows(requested, action) && scopeAllows(granted, action))
            expect(scopeAllows(scopes, action)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('narrowWorkspaces', () => {
  const all = { workspaceIds: [], allWorkspaces: true };

  it('lets an unrestricted creator grant anything', () => {
    expect(narrowWorkspaces(all, all)).toEqual(all);
    expect(narrowWorkspaces({ workspaceIds: ['a', 'a', 'b'], allWorkspaces: false }, all)).toEqual({
      workspaceIds: ['a', 'b'],
      allWorkspaces: false,
    });
  });

  it('keeps a restricted creator restricted', () => {
    const creator = { workspaceIds: ['a', 'b'], allWorkspaces: false };
    expect(narrowWorkspaces(all, creator)).toEqual({ workspaceIds: ['a', 'b'], allWorkspaces: false });
    expect(narrowWorkspaces({ workspaceIds: ['b', 'c'], allWorkspaces: false }, creator)).toEqual({
      workspaceIds: ['b'],
      allWorkspaces: false,
    });
  });

  it('never reaches a workspace the creator cannot', () => {
    const ids = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'));
    const grant = fc.record({ workspaceIds: ids, allWorkspaces: fc.boolean() });
    const reaches = (g: { workspaceIds: readonly string[]; allWorkspaces: boolean }, id: string) =>
      g.allWorkspaces || g.workspaceIds.includes(id);
    fc.assert(
      fc.property(grant, grant, (requested, granted) => {
        const result = narrowWorkspaces(requested, granted);
        for (const id of ['a', 'b', 'c', 'd', 'e']) {
          if (reaches(result, id)) expect(reaches(granted, id) && reaches(requested, id)).toBe(true);
        }
      }),
    );
  });
});
