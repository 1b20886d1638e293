import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '@kw/platform-secret-box';
import { HandoffKeys, type HandoffKeyStore, type StoredHandoffKey } from './handoff-keys.js';
import { signHandoff, type HandoffClaims } from './handoff-tokens.js';
import type { HostedZoneSettings } from './hosted-zone-settings.js';

const DAY = 24 * 60 * 60 * 1000;
const settings: HostedZoneSettings = {
  issuer: 'https://cloud.example.test',
  handoffTtlSeconds: 300,
  keyRotationMs: 30 * DAY,
  offlineAfterMs: 60_000,
  allowHttpEndpoints: false,
  revocationWindowMs: 360_000,
};

class MemoryStore implements HandoffKeyStore {
  readonly keys: StoredHandoffKey[] = [];
  readonly revoked = new Set<string>();
  async all() {
    return this.keys
      .filter((k) => !this.revoked.has(k.kid))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
  async insert(key: StoredHandoffKey) {
    this.keys.push(key);
  }
  async revokeAllExcept(kid: string) {
    const withdrawn = (await this.all()).map((k) => k.kid).filter((k) => k !== kid);
    for (const k of withdrawn) this.revoked.add(k);
    return withdrawn;
  }
}

function setup(start = new Date('2026-01-01T00:00:00Z')) {
  const store = new MemoryStore();
  const box = new SecretBox([randomBytes(32)]);
  let now = start;
  const clock = () => now;
  const keys = new HandoffKeys(store, box, settings, clock);
  return { store, box, keys, advance: (ms: number) => (now = new Date(now.getTime() + ms)), now: () => now };
}

const claims = (now: Date, overrides: Partial<HandoffClaims> = {}): HandoffClaims => ({
  issuer: settings.issuer,
  audience: 'urn:kw:hosted-zone:z1',
  userId: 'u1',
  workspaceId: 'w1',
  role: 'viewer',
  actions: ['fragments:read', 'search:read'],
  ttlSeconds: settings.handoffTtlSeconds,
  now,
  ...overrides,
});

describe('handoff keys and tokens', () => {
  it('makes a key on first use, stores the private half sealed, and signs tokens that verify against the JWKS', async () => {
    const { store, box, keys, now } = setup();
    const jwks = await keys.jwks();
    expect(store.keys).toHaveLength(1);
    expect(jwks.keys).toEqual([
      {
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: store.keys[0]!.kid,
        alg: 'ES256',
        use: 'sig',
      },
    ]);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
    // The private JWK is only in the sealed column, and opens with the box.
    expect(store.keys[0]!.privateJwkSealed).not.toContain('"d"');
    expect(JSON.parse(box.open(store.keys[0]!.privateJwkSealed))).toMatchObject({ kty: 'EC', d: expect.any(String) });

    const signed = await signHandoff(await keys.signingKey(), claims(now()));
    expect(decodeProtectedHeader(signed.token)).toEqual({ alg: 'ES256', kid: store.keys[0]!.kid, typ: 'JWT' });
    const { payload } = await jwtVerify(signed.token, createLocalJWKSet(jwks), {
      issuer: settings.issuer,
      audience: 'urn:kw:hosted-zone:z1',
      algorithms: ['ES256'],
      currentDate: now(),
    });
    const iat = Math.floor(now().getTime() / 1000);
    expect(payload).toEqual({
      iss: settings.issuer,
      aud: 'urn:kw:hosted-zone:z1',
      sub: 'u1',
      jti: signed.jti,
      iat,
      exp: iat + 300,
      kw_ws: 'w1',
      kw_role: 'viewer',
      kw_actions: ['fragments:read', 'search:read'],
    });
    expect(signed.expiresAt.getTime()).toBe((iat + 300) * 1000);
  });

  it('refuses a token for another audience, an expired one and one signed by a key not in the JWKS', async () => {
    const { keys, now } = setup();
    const jwks = createLocalJWKSet(await keys.jwks());
    const signed = await signHandoff(await keys.signingKey(), claims(now()));
    const options = { issuer: settings.issuer, algorithms: ['ES256'] };
    await expect(
      jwtVerify(signed.token, jwks, { ...options, audience: 'urn:kw:hosted-zone:other', currentDate: now() }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
    await expect(
      jwtVerify(signed.token, jwks, {
        ...options,
        audience: 'urn:kw:hosted-zone:z1',
        currentDate: new Date(now().getTime() + 301_000),
      }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
    const stranger = setup();
    const foreign = await signHandoff(await stranger.keys.signingKey(), claims(now()));
    await expect(
      jwtVerify(foreign.token, jwks, { ...options, audience: 'urn:kw:hosted-zone:z1', currentDate: now() }),
    ).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('reuses the key until it is older than the rotation period', async () => {
    const { store, keys, advance } = setup();
    const first = await keys.signingKey();
    advance(29 * DAY);
    expect((await keys.signingKey()).kid).toBe(first.kid);
    // Another replica (a fresh instance over the same table) uses the same key.
    expect(store.keys).toHaveLength(1);
  });

  it('rotates at once after a compromise: the old keys leave the JWKS, and another replica signs with the new key within seconds', async () => {
    const { store, box, keys, advance, now } = setup();
    const old = await keys.signingKey();
    const oldToken = await signHandoff(old, claims(now()));
    const replica = new HandoffKeys(store, box, settings, now);
    expect((await replica.signingKey()).kid).toBe(old.kid);

    const { kid, revokedKids } = await keys.rotateNow();
    expect(revokedKids).toEqual([old.kid]);
    expect((await keys.signingKey()).kid).toBe(kid);
    const jwks = await keys.jwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([kid]);
    await expect(
      jwtVerify(oldToken.token, createLocalJWKSet(jwks), {
        issuer: settings.issuer,
        audience: 'urn:kw:hosted-zone:z1',
        currentDate: now(),
      }),
    ).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    // The other replica keeps its key for a few seconds at most, then reads the table again.
    advance(6_000);
    expect((await replica.signingKey()).kid).toBe(kid);
  });

  it('rotates: new tokens use the new kid, the old key stays published for the token lifetime plus a day, then leaves', async () => {
    const { store, keys, advance, now } = setup();
    const old = await keys.signingKey();
    const oldToken = await signHandoff(old, claims(now()));
    advance(30 * DAY + 1);
    const fresh = await keys.signingKey();
    expect(fresh.kid).not.toBe(old.kid);
    expect(store.keys).toHaveLength(2);
    const newToken = await signHandoff(fresh, claims(now()));
    expect(decodeProtectedHeader(newToken.token).kid).toBe(fresh.kid);

    const jwks = await keys.jwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([fresh.kid, old.kid]);
    // A token the old key signed just before rotation still verifies against the published set.
    await expect(
      jwtVerify(oldToken.token, createLocalJWKSet(jwks), {
        issuer: settings.issuer,
        audience: 'urn:kw:hosted-zone:z1',
        currentDate: new Date(oldToken.expiresAt.getTime() - 1000),
      }),
    ).resolves.toBeDefined();

    advance(DAY + 300_000 - 1000);
    expect((await keys.jwks()).keys.map((k) => k.kid)).toEqual([fresh.kid, old.kid]);
    advance(2000);
    expect((await keys.jwks()).keys.map((k) => k.kid)).toEqual([fresh.kid]);
  });

  it('picks up a key another replica made instead of making its own', async () => {
    const a = setup();
    const shared = a.store;
    const kid = (await a.keys.signingKey()).kid;
    const other = new HandoffKeys(shared, a.box, settings, a.now);
    expect((await other.signingKey()).kid).toBe(kid);
    expect(shared.keys).toHaveLength(1);
  });

  it('makes a new key when the newest no longer opens (the master key changed), and keeps publishing the old one', async () => {
    const a = setup();
    const lost = (await a.keys.signingKey()).kid;
    a.advance(1000);
    const afterKeyChange = new HandoffKeys(a.store, new SecretBox([randomBytes(32)]), settings, a.now);
    const fresh = await afterKeyChange.signingKey();
    expect(fresh.kid).not.toBe(lost);
    expect((await afterKeyChange.jwks()).keys.map((k) => k.kid)).toEqual([fresh.kid, lost]);
  });
});
