import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK, type JWTPayload } from 'jose';
import * as jose from 'jose';
import { AppError } from '@kw/platform-errors';
import { createLogger } from '@kw/platform-observability';
import type { CloudClient } from '../cloud/cloud-client.js';
import { HandoffKeys } from '../keys/handoff-keys.js';
import type { Jwks } from '../keys/jwks.js';
import type { LeafSettings } from '../../leaf-settings.js';
import type { Enrollment, LeafStateRepository } from '../../persistence/leaf-state.repository.js';
import { HandoffAuthenticator } from './handoff-authenticator.js';
import { RevokedHandoffs } from './revoked-handoffs.js';

// The real jwtVerify, counted: how many tokens had their signature checked.
vi.mock('jose', async (importOriginal) => {
  const actual = await importOriginal<typeof import('jose')>();
  return { ...actual, jwtVerify: vi.fn(actual.jwtVerify) };
});
const signatureChecks = () => vi.mocked(jose.jwtVerify).mock.calls.length;

const ISSUER = 'https://cloud.example.com';
const ZONE = randomUUID();
const AUDIENCE = `urn:kw:hosted-zone:${ZONE}`;
const WORKSPACE = randomUUID();
const USER = randomUUID();
const FLOOR_MS = 30_000;

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

async function keyPair(kid: string): Promise<{ kid: string; pair: KeyPair; jwk: JWK }> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  return { kid, pair, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

interface TokenOptions {
  key?: { kid: string; pair: KeyPair };
  claims?: JWTPayload;
  issuer?: string;
  audience?: string;
  expiresIn?: number;
  issuedAgo?: number;
}

describe('HandoffAuthenticator', () => {
  let keyA: Awaited<ReturnType<typeof keyPair>>;
  let keyB: Awaited<ReturnType<typeof keyPair>>;
  let published: Jwks;
  let fetches: number;
  let clock: number;
  let authenticator: HandoffAuthenticator;
  let keys: HandoffKeys;
  let revoked: RevokedHandoffs;
  let enrollment: Enrollment;

  async function token(options: TokenOptions = {}): Promise<string> {
    const key = options.key ?? keyA;
    const now = Math.floor(clock / 1000) - (options.issuedAgo ?? 0);
    return new SignJWT({
      kw_ws: WORKSPACE,
      kw_role: 'contributor',
      kw_actions: ['fragments:read', 'fragments:write', 'search:read'],
      ...options.claims,
    })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setSubject(USER)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresIn ?? 300))
      .sign(key.pair.privateKey);
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

  beforeEach(async () => {
    keyA = await keyPair('key-a');
    keyB = await keyPair('key-b');
    published = { keys: [keyA.jwk] };
    fetches = 0;
    clock = Date.now();
    enrollment = {
      hostedZoneId: ZONE,
      zoneCredential: 'kwz_test',
      enrollmentTokenHash: 'x',
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUri: `${ISSUER}/.well-known/jwks.json`,
      jwks: null,
      jwksFetchedAt: null,
      revocations: null,
      revocationsFetchedAt: null,
      refusedAt: null,
    };
    const store = {
      current: () => enrollment,
      provisionedNow: async (id: string) => id === WORKSPACE,
      saveJwks: async () => undefined,
      saveRevocations: async () => undefined,
    } as unknown as LeafStateRepository;
    const cloud = {
      jwks: async () => {
        fetches++;
        return structuredClone(published);
      },
    } as unknown as CloudClient;
    const settings = { jwksRefreshMs: 300_000, jwksRefetchFloorMs: FLOOR_MS } as LeafSettings;
    keys = new HandoffKeys(
      cloud,
      store,
      settings,
      createLogger({ level: 'silent', component: 'leaf-test' }),
      () => clock,
    );
    await keys.refresh();
    fetches = 0;
    revoked = new RevokedHandoffs(store, createLogger({ level: 'silent', component: 'leaf-test' }), () => clock);
    authenticator = new HandoffAuthenticator(keys, store, revoked);
  });

  it('accepts a handoff token and builds the AuthContext from its claims', async () => {
    const jwt = await token();
    const { auth, user } = await authenticator.authenticateBearer(jwt);
    expect(auth.userId).toBe(USER);
    expect(auth.credentialKind).toBe('handoff');
    expect(auth.credentialId).toMatch(/^[0-9a-f-]{36}$/);
    expect(auth.scopes).toEqual(['fragments:read', 'fragments:write', 'search:read']);
    expect(auth.workspaceIds).toEqual([WORKSPACE]);
    expect(auth.allWorkspaces).toBe(false);
    expect(auth.workspaceRole).toBe('contributor');
    expect(user.id).toBe(USER);
    expect(fetches).toBe(0);
  });

  it("accepts a public workspace's subscriber with the read actions its token carries", async () => {
    const claims = { kw_role: 'subscriber', kw_actions: ['fragments:read', 'collections:read', 'search:read'] };
    const { auth } = await authenticator.authenticateBearer(await token({ claims }));
    expect(auth.workspaceRole).toBe('subscriber');
    expect(auth.scopes).toEqual(claims.kw_actions);
  });

  it('refuses a token the Cloud revoked (issued up to the second after the revocation); accepts a later one', async () => {
    const credentialId = randomUUID();
    const before = await token({ issuedAgo: 10, claims: { kw_cred: credentialId } });
    await revoked.replace([{ userId: USER, workspaceId: WORKSPACE, revokedAt: clock - 5_000 }]);
    const err = await refusal(authenticator.authenticateBearer(before));
    expect(err.message).toMatch(/revoked/);
    // Issued after the revocation (more than a second later): accepted.
    await expect(authenticator.authenticateBearer(await token({ issuedAgo: 2 }))).resolves.toBeDefined();
    // A revoked credential: only the tokens issued through it.
    await revoked.replace([{ credentialId, revokedAt: clock }]);
    await refusal(authenticator.authenticateBearer(await token({ claims: { kw_cred: credentialId } })));
    await expect(
      authenticator.authenticateBearer(await token({ claims: { kw_cred: randomUUID() } })),
    ).resolves.toBeDefined();
  });

  it('refuses every token while the Cloud refuses the zone credential (zone deleted or enrolled elsewhere)', async () => {
    const jwt = await token();
    await expect(authenticator.authenticateBearer(jwt)).resolves.toBeDefined();
    enrollment.refusedAt = new Date(clock);
    const err = await refusal(authenticator.authenticateBearer(jwt));
    expect(err.message).toMatch(/serves no workspace/);
    enrollment.refusedAt = null;
    await expect(authenticator.authenticateBearer(jwt)).resolves.toBeDefined();
  });

  it('refuses an expired token (beyond the clock tolerance)', async () => {
    const err = await refusal(authenticator.authenticateBearer(await token({ issuedAgo: 400, expiresIn: 300 })));
    expect(err.message).toMatch(/expired/);
  });

  it('tolerates a few seconds of clock difference on exp', async () => {
    await expect(
      authenticator.authenticateBearer(await token({ issuedAgo: 302, expiresIn: 300 })),
    ).resolves.toBeDefined();
  });

  it('refuses a bad signature (signed by another key under a published kid)', async () => {
    const forged = await token({ key: { kid: keyA.kid, pair: keyB.pair } });
    const err = await refusal(authenticator.authenticateBearer(forged));
    expect(err.message).toMatch(/signature/);
  });

  it('refuses a token for another zone (audience)', async () => {
    const err = await refusal(
      authenticator.authenticateBearer(await token({ audience: `urn:kw:hosted-zone:${randomUUID()}` })),
    );
    expect(err.message).toMatch(/another hosted zone/);
  });

  it('refuses a token from another issuer', async () => {
    const err = await refusal(authenticator.authenticateBearer(await token({ issuer: 'https://evil.example.com' })));
    expect(err.message).toMatch(/not issued by the Cloud/);
  });

  it('refuses a token for a workspace not provisioned here', async () => {
    const err = await refusal(authenticator.authenticateBearer(await token({ claims: { kw_ws: randomUUID() } })));
    expect(err.message).toMatch(/does not serve/);
  });

  it('refuses tokens without the handoff claims', async () => {
    await refusal(authenticator.authenticateBearer(await token({ claims: { kw_actions: 'fragments:read' } })));
    await refusal(authenticator.authenticateBearer(await token({ claims: { kw_role: 'admin' } })));
    await refusal(authenticator.authenticateBearer(await token({ claims: { kw_ws: 'not-a-uuid' } })));
  });

  it('refuses an unsigned token, a personal access token and a browser session', async () => {
    const unsigned = new UnsecuredJWT({ kw_ws: WORKSPACE, kw_role: 'owner', kw_actions: ['*'] })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(USER)
      .setJti('j')
      .setIssuedAt()
      .setExpirationTime('5m')
      .encode();
    await refusal(authenticator.authenticateBearer(unsigned));
    const err = await refusal(
      authenticator.authenticateBearer('kwp_0123456789abcdefghijklmnopqrstuvwxyzABCDEF_1a2b3c'),
    );
    expect(err.message).toMatch(/handoff tokens/);
    await refusal(authenticator.authenticateSession());
  });

  it('fetches the JWKS once for an unknown kid (key rotation), then at most once per floor', async () => {
    published = { keys: [keyA.jwk, keyB.jwk] };
    const rotated = await token({ key: keyB });
    const { auth } = await authenticator.authenticateBearer(rotated);
    expect(auth.userId).toBe(USER);
    expect(fetches).toBe(1);
    // Known now: no further fetch.
    await authenticator.authenticateBearer(await token({ key: keyB }));
    expect(fetches).toBe(1);

    const keyC = await keyPair('key-c');
    const unknown = await token({ key: keyC });
    const err = await refusal(authenticator.authenticateBearer(unknown));
    expect(err.message).toMatch(/key the Cloud does not publish/);
    // Within the floor: an unknown kid does not reach the Cloud again.
    expect(fetches).toBe(1);
    clock += FLOOR_MS;
    await refusal(authenticator.authenticateBearer(await token({ key: keyC })));
    expect(fetches).toBe(2);
  });

  it('keeps verifying with the cached keys when the Cloud cannot be reached', async () => {
    (keys as unknown as { cloud: CloudClient }).cloud.jwks = async () => {
      fetches++;
      throw new Error('connection refused');
    };
    expect(await keys.refresh()).toBe(false);
    await expect(authenticator.authenticateBearer(await token())).resolves.toBeDefined();
  });

  describe('remembering verified tokens', () => {
    afterEach(() => vi.useRealTimers());

    it('checks a token once while it is valid, and every new token', async () => {
      const jwt = await token();
      const before = signatureChecks();
      const first = await authenticator.authenticateBearer(jwt);
      const again = await authenticator.authenticateBearer(jwt);
      expect(again.auth).toEqual(first.auth);
      expect(signatureChecks() - before).toBe(1);
      await authenticator.authenticateBearer(await token());
      expect(signatureChecks() - before).toBe(2);
    });

    it('still refuses a remembered token once the Cloud revokes it', async () => {
      const jwt = await token({ issuedAgo: 10 });
      await authenticator.authenticateBearer(jwt);
      await revoked.replace([{ userId: USER, workspaceId: WORKSPACE, revokedAt: clock - 5_000 }]);
      expect((await refusal(authenticator.authenticateBearer(jwt))).message).toMatch(/revoked/);
    });

    it('refuses a remembered token once it expires', async () => {
      const jwt = await token({ expiresIn: 60 });
      await authenticator.authenticateBearer(jwt);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 70_000 });
      expect((await refusal(authenticator.authenticateBearer(jwt))).message).toMatch(/expired/);
    });

    it('checks remembered tokens again when the keys change: one signed by a withdrawn key is refused', async () => {
      const jwt = await token();
      await authenticator.authenticateBearer(jwt);
      published = { keys: [keyB.jwk] };
      await keys.refresh();
      expect((await refusal(authenticator.authenticateBearer(jwt))).message).toMatch(/key the Cloud does not publish/);
    });
  });
});
