import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseRevocations, RevocationList, revocationsJson, revokes, type HandoffFacts } from './revocation-list.js';

const USER = randomUUID();
const WORKSPACE = randomUUID();
const CREDENTIAL = randomUUID();
const REVOKED_AT = Date.parse('2026-11-26T10:00:00.400Z');
const SECOND = Math.floor(REVOKED_AT / 1000);

const token = (overrides: Partial<HandoffFacts> = {}): HandoffFacts => ({
  userId: USER,
  workspaceId: WORKSPACE,
  credentialId: CREDENTIAL,
  issuedAt: SECOND - 60,
  ...overrides,
});

describe('revokes', () => {
  it('matches when every id the entry names is the token’s', () => {
    const membership = { userId: USER, workspaceId: WORKSPACE, revokedAt: REVOKED_AT };
    expect(revokes(membership, token())).toBe(true);
    expect(revokes(membership, token({ workspaceId: randomUUID() }))).toBe(false);
    expect(revokes(membership, token({ userId: randomUUID() }))).toBe(false);
    const account = { userId: USER, revokedAt: REVOKED_AT };
    expect(revokes(account, token({ workspaceId: randomUUID(), credentialId: undefined }))).toBe(true);
    const credential = { credentialId: CREDENTIAL, revokedAt: REVOKED_AT };
    expect(revokes(credential, token({ userId: randomUUID() }))).toBe(true);
    expect(revokes(credential, token({ credentialId: undefined }))).toBe(false);
    expect(revokes(credential, token({ credentialId: randomUUID() }))).toBe(false);
  });

  it('refuses tokens issued up to the second after the revocation, accepts later ones', () => {
    const entry = { userId: USER, revokedAt: REVOKED_AT };
    expect(revokes(entry, token({ issuedAt: SECOND }))).toBe(true);
    expect(revokes(entry, token({ issuedAt: SECOND + 1 }))).toBe(true);
    expect(revokes(entry, token({ issuedAt: SECOND + 2 }))).toBe(false);
  });

  it('revokes nothing with an entry that names no id', () => {
    expect(revokes({ revokedAt: REVOKED_AT }, token())).toBe(false);
  });
});

describe('parseRevocations', () => {
  it('reads the heartbeat’s JSON, nulls as absent, and drops malformed entries', () => {
    const parsed = parseRevocations([
      { userId: USER, workspaceId: WORKSPACE, credentialId: null, revokedAt: '2026-11-26T10:00:00.400Z' },
      { userId: null, workspaceId: null, credentialId: CREDENTIAL, revokedAt: '2026-11-26T10:00:01.000Z' },
      { userId: 'not-a-uuid', revokedAt: '2026-11-26T10:00:00.000Z' },
      { userId: USER, revokedAt: 'yesterday' },
      { userId: null, workspaceId: null, credentialId: null, revokedAt: '2026-11-26T10:00:00.000Z' },
      'garbage',
      null,
    ]);
    expect(parsed).toEqual([
      { userId: USER, workspaceId: WORKSPACE, revokedAt: REVOKED_AT },
      { credentialId: CREDENTIAL, revokedAt: Date.parse('2026-11-26T10:00:01.000Z') },
    ]);
    expect(parseRevocations(undefined)).toBeUndefined();
    expect(parseRevocations({ entries: [] })).toBeUndefined();
  });

  it('reads back what revocationsJson writes (the persisted copy)', () => {
    const entries = [
      { userId: USER, workspaceId: WORKSPACE, revokedAt: REVOKED_AT },
      { credentialId: CREDENTIAL, revokedAt: REVOKED_AT },
    ];
    expect(parseRevocations(JSON.parse(JSON.stringify(revocationsJson(entries))))).toEqual(entries);
  });
});

describe('RevocationList', () => {
  it('finds the entry that revokes a token among many, by user and by credential', () => {
    const others = Array.from({ length: 500 }, () => ({ userId: randomUUID(), revokedAt: REVOKED_AT }));
    const list = new RevocationList([
      ...others,
      { credentialId: CREDENTIAL, revokedAt: REVOKED_AT },
      { userId: USER, workspaceId: WORKSPACE, revokedAt: REVOKED_AT - 120_000 },
    ]);
    expect(list.size).toBe(502);
    expect(list.match(token({ credentialId: undefined, issuedAt: SECOND - 130 }))).toMatchObject({
      workspaceId: WORKSPACE,
    });
    expect(list.match(token({ userId: randomUUID() }))).toMatchObject({ credentialId: CREDENTIAL });
    // Issued after the membership entry, through another credential: served.
    expect(list.match(token({ credentialId: randomUUID() }))).toBeUndefined();
    expect(RevocationList.empty.match(token())).toBeUndefined();
  });
});
