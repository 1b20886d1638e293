import { Inject, Injectable, Optional } from '@nestjs/common';
import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { CloudClient } from '../cloud/cloud-client.js';
import { LEAF_CLOCK, LEAF_SETTINGS, type LeafSettings } from '../../leaf-settings.js';
import { LeafStateRepository } from '../../persistence/leaf-state.repository.js';
import type { Jwks } from './jwks.js';

/**
 * The Cloud's public keys that verify handoff tokens: the JWKS fetched at start, every
 * `jwksRefreshMs`, and when a token names an unknown kid (at most once per
 * `jwksRefetchFloorMs`, so forged kids cannot make the Leaf hammer the Cloud). Every fetched
 * set is persisted: a Leaf restarted while the Cloud is down still verifies.
 */
@Injectable()
export class HandoffKeys {
  private keySet: JWTVerifyGetKey = createLocalJWKSet({ keys: [] });
  private fetchedAt = 0;
  private kids = new Set<string>();
  private count = 0;
  private lastUnknownKidFetch = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<boolean> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly cloud: CloudClient,
    private readonly store: LeafStateRepository,
    @Inject(LEAF_SETTINGS) private readonly settings: LeafSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional() @Inject(LEAF_CLOCK) clock?: () => number,
  ) {
    this.now = clock ?? Date.now;
  }

  /** The keys for jose's jwtVerify. */
  get(): JWTVerifyGetKey {
    return this.keySet;
  }

  /** Uses the persisted set (the enrollment's), until a fetch replaces it. */
  usePersisted(): void {
    const enrollment = this.store.current();
    if (enrollment?.jwks) this.install(enrollment.jwks, enrollment.jwksFetchedAt?.getTime() ?? 0);
  }

  /** How many keys verify tokens now: with none, every handoff token is refused. */
  get keyCount(): number {
    return this.count;
  }

  /** When the installed set was fetched from the Cloud (ms), undefined before any. */
  get lastFetchedAt(): number | undefined {
    return this.count > 0 || this.fetchedAt > 0 ? this.fetchedAt : undefined;
  }

  /** True when the periodic refresh is due. */
  stale(): boolean {
    return this.now() - this.fetchedAt >= this.settings.jwksRefreshMs;
  }

  /** Fetches and persists the JWKS; false (and a warning) when the Cloud cannot answer. */
  refresh(): Promise<boolean> {
    this.inFlight ??= this.fetch().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /**
   * A token named a kid the cached set lacks (the Cloud rotated its key): fetches again unless
   * a fetch for that reason happened within the floor. True when a new set was installed.
   */
  async refreshForUnknownKid(): Promise<boolean> {
    const now = this.now();
    if (now - this.lastUnknownKidFetch < this.settings.jwksRefetchFloorMs) return false;
    this.lastUnknownKidFetch = now;
    return this.refresh();
  }

  private async fetch(): Promise<boolean> {
    const enrollment = this.store.current();
    if (!enrollment) return false;
    let jwks: Jwks;
    try {
      jwks = await this.cloud.jwks(enrollment.jwksUri);
    } catch (err) {
      this.logger.warn(
        { err: (err as Error).message, jwksUri: enrollment.jwksUri },
        'could not fetch the Cloud keys (JWKS); verifying with the cached ones',
      );
      return false;
    }
    const fetchedAt = new Date(this.now());
    this.install(jwks, fetchedAt.getTime());
    await this.store
      .saveJwks(jwks, fetchedAt)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not persist the Cloud keys (JWKS)'));
    this.logger.debug({ kids: jwks.keys.map((k) => k.kid) }, 'Cloud keys (JWKS) refreshed');
    return true;
  }

  private install(jwks: Jwks, fetchedAt: number): void {
    this.keySet = createLocalJWKSet(jwks);
    this.fetchedAt = fetchedAt;
    this.count = jwks.keys.length;
    this.kids = new Set(jwks.keys.map((k) => k.kid ?? ''));
  }

  /** Whether the installed set is the one the Cloud publishes (the kids a heartbeat names). */
  matches(kids: readonly string[]): boolean {
    return kids.length === this.kids.size && kids.every((kid) => this.kids.has(kid));
  }
}
