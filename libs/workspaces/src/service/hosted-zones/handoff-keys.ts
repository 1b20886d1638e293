import { Inject, Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { SECRET_BOX, type SecretBox } from '@kw/platform-secret-box';
import {
  HandoffKeysRepository,
  type HandoffKeyStore,
  type StoredHandoffKey,
} from '../../persistence/handoff-keys.repository.js';
import { HOSTED_ZONE_SETTINGS, type HostedZoneSettings } from './hosted-zone-settings.js';

export const HANDOFF_ALG = 'ES256';
/** A retired key stays published this long after its token lifetime, for clocks and caches that lag. */
const RETIRED_KEY_GRACE_MS = 24 * 60 * 60 * 1000;
/**
 * How long a replica signs with the key it knows before reading the table again: after a
 * forced rotation on another replica, a withdrawn key signs for at most this long (a Leaf
 * refuses those tokens; the client gets a fresh one).
 */
const KEY_RECHECK_MS = 5_000;

export type { HandoffKeyStore, StoredHandoffKey };

export const HANDOFF_KEY_STORE = Symbol('HANDOFF_KEY_STORE');
export const HANDOFF_CLOCK = Symbol('HANDOFF_CLOCK');
export type Clock = () => Date;

/** The store of the running component: the control-plane table. */
export const handoffKeyStoreProvider = { provide: HANDOFF_KEY_STORE, useExisting: HandoffKeysRepository };
export const handoffClockProvider = { provide: HANDOFF_CLOCK, useValue: (() => new Date()) satisfies Clock };

export interface SigningKey {
  kid: string;
  key: CryptoKey;
  createdAt: Date;
}

/**
 * The ES256 keys that sign handoff tokens. The newest key signs; a new one is made (lazily,
 * on first use) when the newest is older than HANDOFF_KEY_ROTATION_DAYS. A key that has a
 * newer one stays in the JWKS for the token lifetime plus a day, so every token it signed
 * still verifies at a Leaf. Replicas rotating at the same moment each add a key: harmless,
 * every key is published.
 */
@Injectable()
export class HandoffKeys {
  private current: SigningKey | undefined;
  private checkedAt = 0;

  constructor(
    @Inject(HANDOFF_KEY_STORE) private readonly store: HandoffKeyStore,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(HOSTED_ZONE_SETTINGS) private readonly settings: HostedZoneSettings,
    @Inject(HANDOFF_CLOCK) private readonly clock: Clock,
  ) {}

  /** The key that signs now (made or rotated if needed). */
  async signingKey(): Promise<SigningKey> {
    const now = this.clock();
    if (this.current && this.fresh(this.current.createdAt, now) && now.getTime() - this.checkedAt < KEY_RECHECK_MS)
      return this.current;
    const [newest] = await this.store.all();
    let stored = newest && this.fresh(newest.createdAt, now) ? newest : await this.create(now);
    this.checkedAt = now.getTime();
    if (this.current?.kid === stored.kid) return this.current;
    let privateJwk: string;
    try {
      privateJwk = this.box.open(stored.privateJwkSealed);
    } catch {
      // Sealed under a master key no longer configured (SECRETS_ENCRYPTION_KEY changed without
      // `npm run vault:rewrap`): a new key signs from now on, as after a scheduled rotation;
      // the unreadable one stays published for the tokens it signed.
      stored = await this.create(now);
      privateJwk = this.box.open(stored.privateJwkSealed);
    }
    const key = (await importJWK(JSON.parse(privateJwk) as JWK, HANDOFF_ALG)) as CryptoKey;
    this.current = { kid: stored.kid, key, createdAt: stored.createdAt };
    return this.current;
  }

  /**
   * After a suspected compromise: a new key signs from now on, and every other key is withdrawn
   * from the JWKS at once (not kept for the grace period), so the tokens they signed stop
   * verifying as soon as the Leaves fetch the keys again (their next heartbeat).
   */
  async rotateNow(): Promise<{ kid: string; revokedKids: string[] }> {
    const now = this.clock();
    const stored = await this.create(now);
    const revokedKids = await this.store.revokeAllExcept(stored.kid, now);
    this.current = undefined;
    return { kid: stored.kid, revokedKids };
  }

  /** The JWKS document: the signing key and the previous keys whose tokens may still be valid. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.signingKey();
    const now = this.clock().getTime();
    const keep = this.settings.handoffTtlSeconds * 1000 + RETIRED_KEY_GRACE_MS;
    const all = await this.store.all();
    const published = all.filter((key, i) => i === 0 || all[i - 1]!.createdAt.getTime() + keep > now);
    return { keys: published.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: HANDOFF_ALG, use: 'sig' })) };
  }

  private fresh(createdAt: Date, now: Date): boolean {
    return now.getTime() - createdAt.getTime() < this.settings.keyRotationMs;
  }

  private async create(now: Date): Promise<StoredHandoffKey> {
    const { publicKey, privateKey } = await generateKeyPair(HANDOFF_ALG, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const stored: StoredHandoffKey = {
      kid,
      publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y },
      privateJwkSealed: this.box.seal(JSON.stringify(await exportJWK(privateKey))),
      createdAt: now,
    };
    await this.store.insert(stored);
    return stored;
  }
}
