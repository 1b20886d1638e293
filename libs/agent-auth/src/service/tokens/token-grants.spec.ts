import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { capExpiry, grantForNewToken, narrowedScopes, narrowedWorkspaces, parseFutureExpiry } from './token-grants.js';

const all = { allWorkspaces: true, workspaceIds: [] as string[] };

function status(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    return (e as AppError).status;
  }
  return undefined;
}

describe('token grants', () => {
  it('a new token gets what the creator holds, and reports the rest', () => {
    expect(grantForNewToken({ scopes: ['*'], ...all }, { scopes: ['*'], ...all })).toMatchObject({
      scopes: ['*'],
      allWorkspaces: true,
      droppedScopes: [],
    });
    const narrowed = grantForNewToken(
      { scopes: ['fragments:read', 'fragments:write'], allWorkspaces: false, workspaceIds: ['a', 'b'] },
      { scopes: ['fragments:read'], allWorkspaces: false, workspaceIds: ['a'] },
    );
    expect(narrowed).toEqual({
      scopes: ['fragments:read'],
      allWorkspaces: false,
      workspaceIds: ['a'],
      droppedScopes: ['fragments:write'],
      droppedWorkspaceIds: ['b'],
    });
    expect(
      grantForNewToken(
        { scopes: ['profile:read'], ...all },
        { scopes: ['profile:read'], allWorkspaces: false, workspaceIds: ['a'] },
      ),
    ).toMatchObject({ allWorkspaces: false, workspaceIds: ['a'] });
    expect(status(() => grantForNewToken({ scopes: ['admin'], ...all }, { scopes: ['profile:read'], ...all }))).toBe(
      403,
    );
    expect(status(() => grantForNewToken({ scopes: ['nope'], ...all }, { scopes: ['*'], ...all }))).toBe(400);
    expect(status(() => grantForNewToken({ scopes: [], ...all }, { scopes: ['*'], ...all }))).toBe(400);
  });

  it('never mints a token that reaches no workspace', () => {
    const none = { allWorkspaces: false, workspaceIds: [] as string[] };
    const onlyA = { scopes: ['*'], allWorkspaces: false, workspaceIds: ['a'] };
    // An empty list: 400, whoever asks.
    expect(status(() => grantForNewToken({ scopes: ['*'], ...none }, { scopes: ['*'], ...all }))).toBe(400);
    expect(status(() => grantForNewToken({ scopes: ['*'], ...none }, onlyA))).toBe(400);
    // None of the requested workspaces is held: 403, as for scopes.
    expect(
      status(() => grantForNewToken({ scopes: ['*'], allWorkspaces: false, workspaceIds: ['b', 'c'] }, onlyA)),
    ).toBe(403);
    // A creator that reaches no workspace mints nothing either.
    expect(status(() => grantForNewToken({ scopes: ['*'], ...all }, { scopes: ['*'], ...none }))).toBe(403);
    expect(status(() => narrowedWorkspaces([], all))).toBe(400);
    expect(status(() => narrowedWorkspaces([], { allWorkspaces: false, workspaceIds: ['a'] }))).toBe(400);
  });

  it('updates only narrow', () => {
    expect(narrowedScopes(['fragments:read'], ['*'])).toEqual(['fragments:read']);
    expect(narrowedScopes(['*'], ['*'])).toEqual(['*']);
    expect(status(() => narrowedScopes(['*'], ['fragments:read']))).toBe(400);
    expect(status(() => narrowedScopes(['fragments:write'], ['fragments:read']))).toBe(400);
    expect(narrowedWorkspaces(['a'], all)).toEqual(['a']);
    expect(narrowedWorkspaces(['a', 'a'], { allWorkspaces: false, workspaceIds: ['a', 'b'] })).toEqual(['a']);
    expect(status(() => narrowedWorkspaces(['c'], { allWorkspaces: false, workspaceIds: ['a'] }))).toBe(400);
  });

  it('expiries are in the future and never outlive the creating token', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(status(() => parseFutureExpiry('2025-12-31T00:00:00Z', now))).toBe(400);
    expect(parseFutureExpiry('2026-02-01T00:00:00Z', now).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    const creator = new Date('2026-01-10T00:00:00Z');
    expect(capExpiry(null, creator)).toEqual(creator);
    expect(capExpiry(new Date('2026-03-01T00:00:00Z'), creator)).toEqual(creator);
    expect(capExpiry(new Date('2026-01-05T00:00:00Z'), creator)).toEqual(new Date('2026-01-05T00:00:00Z'));
    expect(capExpiry(null, null)).toBeNull();
  });
});
