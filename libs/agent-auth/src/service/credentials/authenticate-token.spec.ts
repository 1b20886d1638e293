import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { generateToken, hashToken } from '../../domain/tokens/token-format.js';
import type { TokenCredentialStore } from '../../persistence/tokens.repository.js';
import type { TokenRow, UserRow } from '../../persistence/rows.js';
import { AuthenticateToken } from './authenticate-token.js';
import { TokenUsageRecorder } from '@kw/platform-token-cache';
import type { AuthenticateAgentToken } from './authenticate-agent-token.js';

const now = new Date('2026-11-22T12:00:00Z');
/** These cases hold no agent tokens: reaching the agent path is a failure. */
const noAgents = {
  authenticate: () => Promise.reject(new Error('not an agent token')),
} as unknown as AuthenticateAgentToken;

function user(overrides: Partial<UserRow> = {}): UserRow {
  return {
    id: 'u1',
    email: 'a@x.test',
    displayName: 'A',
    passwordHash: null,
    status: 'active',
    platformAdmin: false,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

function tokenRow(
  tokenHash: string,
  overrides: Partial<TokenRow & { user: UserRow }> = {},
): TokenRow & { user: UserRow } {
  return {
    id: 't1',
    userId: 'u1',
    name: 'n',
    displayPrefix: 'kwp_x',
    tokenHash,
    scopes: ['fragments:read'],
    allWorkspaces: false,
    workspaceIds: ['w1'],
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    lastUsedIp: null,
    createdAt: now,
    updatedAt: now,
    user: user(),
    ...overrides,
  };
}

/** A store that records every call, so a test can prove that no lookup happened. */
function recordingStore(rows: (TokenRow & { user: UserRow })[] = []) {
  const calls: string[] = [];
  const store: TokenCredentialStore = {
    async findByHash(hash) {
      calls.push(`findByHash:${hash}`);
      return rows.find((r) => r.tokenHash === hash) ?? null;
    },
    async recordUses(id, use) {
      calls.push(`recordUses:${id}:${use.lastIp}`);
    },
  };
  return { store, calls };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).status).toBe(401);
  expect((err as AppError).code).toBe('UNAUTHENTICATED');
  return err as AppError;
}

describe('AuthenticateToken', () => {
  it('resolves a valid token to its auth context and records the use', async () => {
    const { token } = generateToken();
    const { store, calls } = recordingStore([tokenRow(hashToken(token))]);
    const usage = new TokenUsageRecorder(store);
    const { caller, expiresAt } = await new AuthenticateToken(store, usage, noAgents).execute(token, '10.0.0.1', now);
    expect(expiresAt).toBeUndefined();
    // The use is written off the request's path, by the next flush.
    expect(calls).toEqual([`findByHash:${hashToken(token)}`]);
    await usage.flush();
    expect(caller?.auth).toEqual({
      userId: 'u1',
      credentialId: 't1',
      credentialKind: 'pat',
      scopes: ['fragments:read'],
      allWorkspaces: false,
      workspaceIds: ['w1'],
    });
    expect(caller?.user).toMatchObject({ id: 'u1', email: 'a@x.test' });
    expect(calls).toEqual([`findByHash:${hashToken(token)}`, 'recordUses:t1:10.0.0.1']);
  });

  it("answers with the token's expiry, so a caching gateway never keeps it longer", async () => {
    const { token } = generateToken();
    const expiresAt = new Date(now.getTime() + 60_000);
    const { store } = recordingStore([tokenRow(hashToken(token), { expiresAt })]);
    const answer = await new AuthenticateToken(store, new TokenUsageRecorder(store), noAgents).execute(token, '', now);
    expect(answer.expiresAt).toBe(expiresAt.toISOString());
  });

  it('refuses a kwp_ token with a bad checksum without any lookup', async () => {
    const { token } = generateToken();
    const broken = token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a');
    const { store, calls } = recordingStore([tokenRow(hashToken(broken))]);
    await refusal(new AuthenticateToken(store, new TokenUsageRecorder(store), noAgents).execute(broken, '', now));
    await refusal(
      new AuthenticateToken(store, new TokenUsageRecorder(store), noAgents).execute('short-garbage', '', now),
    );
    expect(calls).toEqual([]);
  });

  it('refuses unknown, revoked and expired tokens and disabled accounts, and records nothing', async () => {
    const tokens = Array.from({ length: 4 }, () => generateToken().token);
    const { store, calls } = recordingStore([
      tokenRow(hashToken(tokens[1]), { revokedAt: now }),
      tokenRow(hashToken(tokens[2]), { expiresAt: now }),
      tokenRow(hashToken(tokens[3]), { user: user({ status: 'disabled' }) }),
    ]);
    const messages = new Set<string>();
    const usage = new TokenUsageRecorder(store);
    for (const t of tokens)
      messages.add((await refusal(new AuthenticateToken(store, usage, noAgents).execute(t, '', now))).message);
    expect(messages.size).toBe(1);
    await usage.flush();
    expect(calls.filter((c) => c.startsWith('recordUse'))).toEqual([]);
  });

  it('looks up operator secrets of 32+ characters by hash', async () => {
    const secret = 'operator-provided-admin-token-0123456789';
    const { store, calls } = recordingStore([
      tokenRow(hashToken(secret), { scopes: ['*'], allWorkspaces: true, workspaceIds: [] }),
    ]);
    const usage = new TokenUsageRecorder(store);
    const { caller } = await new AuthenticateToken(store, usage, noAgents).execute(secret, '', now);
    expect(caller?.auth).toMatchObject({ scopes: ['*'], allWorkspaces: true, workspaceIds: [] });
    await usage.flush();
    expect(calls).toHaveLength(2);
  });
});
