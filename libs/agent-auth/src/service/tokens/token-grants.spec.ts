import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import {
  capExpiry,
  grantForNewToken,
  keepReachable,
  narrowedScopes,
  narrowedWorkspaces,
  parseFutureExpiry,
} from './token-grants.js';

const all = { allWorkspaces: true, workspaceIds: [] as string[] };
/** An account that is not a platform administrator. */
const member = { platformAdmin: false };

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
    expect(grantForNewToken({ scopes: ['*'], ...all }, { scopes: ['*'], ...all }, member)).toMatchObject({
      scopes: ['*'],
      allWorkspaces: true,
      droppedScopes: [],
    });
    const narrowed = grantForNewToken(
      { scopes: ['fragments:read', 'fragments:write'], allWorkspaces: false, workspaceIds: ['a', 'b'] },
      { scopes: ['fragments:read'], allWorkspaces: false, workspaceIds: ['a'] },
      member,
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
        member,
      ),
    ).toMatchObject({ allWorkspaces: false, workspaceIds: ['a'] });
    expect(
      status(() => grantForNewToken({ scopes: ['admin'], ...all }, { scopes: ['profile:read'], ...all }, member)),
    ).toBe(403);
    expect(status(() => grantForNewToken({ scopes: ['nope'], ...all }, { scopes: ['*'], ...all }, member))).toBe(400);
    expect(status(() => grantForNewToken({ scopes: [], ...all }, { scopes: ['*'], ...all }, member))).toBe(400);
  });

  it('never mints a token that reaches no workspace', () => {
    const none = { allWorkspaces: false, workspaceIds: [] as string[] };
    const onlyA = { scopes: ['*'], allWorkspaces: false, workspaceIds: ['a'] };
    // An empty list: 400, whoever asks.
    expect(status(() => grantForNewToken({ scopes: ['*'], ...none }, { scopes: ['*'], ...all }, member))).toBe(400);
    expect(status(() => grantForNewToken({ scopes: ['*'], ...none }, onlyA, member))).toBe(400);
    // None of the requested workspaces is held: 403, as for scopes.
    expect(
      status(() => grantForNewToken({ scopes: ['*'], allWorkspaces: false, workspaceIds: ['b', 'c'] }, onlyA, member)),
    ).toBe(403);
    // A creator that reaches no workspace mints nothing either.
    expect(status(() => grantForNewToken({ scopes: ['*'], ...all }, { scopes: ['*'], ...none }, member))).toBe(403);
    expect(status(() => narrowedWorkspaces([], all))).toBe(400);
    expect(status(() => narrowedWorkspaces([], { allWorkspaces: false, workspaceIds: ['a'] }))).toBe(400);
  });

  it('admin is held only by a platform administrator, whatever the credential says', () => {
    const session = { scopes: ['*'], ...all };
    expect(status(() => grantForNewToken({ scopes: ['admin'], ...all }, session, member))).toBe(403);
    expect(grantForNewToken({ scopes: ['admin', 'profile:read'], ...all }, session, member)).toMatchObject({
      scopes: ['profile:read'],
      droppedScopes: ['admin'],
    });
    expect(grantForNewToken({ scopes: ['admin'], ...all }, session, { platformAdmin: true })).toMatchObject({
      scopes: ['admin'],
      droppedScopes: [],
    });
  });

  it('keeps only the workspaces the user reaches, and mints nothing that reaches none', () => {
    const grant = grantForNewToken(
      { scopes: ['*'], allWorkspaces: false, workspaceIds: ['a', 'b'] },
      {
        scopes: ['*'],
        ...all,
      },
      member,
    );
    expect(keepReachable(grant, ['a'])).toMatchObject({ workspaceIds: ['a'], droppedWorkspaceIds: ['b'] });
    expect(status(() => keepReachable(grant, []))).toBe(403);
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
