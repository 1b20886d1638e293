import { createHash } from 'node:crypto';
import { Inject, Injectable, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { CredentialsChangedSchema, IdentityService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { AuthenticatedCaller } from '@kw/platform-http';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import {
  InvalidatedCache,
  onBroadcast,
  ServiceClient,
  TRANSPORT,
  type Subscription,
  type Transport,
} from '@kw/platform-transport';
import { TokenUsageRecorder } from './token-usage-recorder.js';
import { toTokenUsesMessage, type TokenUse } from './token-use.js';

/** What agent-auth answered for a token: the caller, and the token's expiry if it has one. */
export interface FetchedAuthentication {
  caller: AuthenticatedCaller;
  expiresAt?: Date;
}

const credentialTag = (id: string) => `c:${id}`;
const userTag = (id: string) => `u:${id}`;

/**
 * A token authentication cache, keyed by the token's SHA-256 (never the token itself): the
 * gateway's for bearer tokens, and the embed chat's for its keys' scoped tokens. What keeps it
 * honest:
 * - CredentialsChanged broadcasts from agent-auth drop entries of revoked, changed or
 *   re-dated tokens and of changed accounts (subscribed for the life of the module);
 * - entries live at most AUTH_CACHE_TTL_MS (the bound for a missed broadcast) and never past
 *   the token's expiry;
 * - a use answered from the cache is still counted: such uses gather here and go to
 *   agent-auth (RecordTokenUses) once a second, and before token analytics are read.
 */
@Injectable()
export class TokenAuthenticationCache implements OnModuleInit, OnModuleDestroy {
  private readonly cache: InvalidatedCache<AuthenticatedCaller>;
  private readonly uses: TokenUsageRecorder;
  private subscription?: Subscription;

  constructor(
    client: ServiceClient,
    @Inject(TRANSPORT) private readonly transport: Transport,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'AUTH_CACHE_TTL_MS'>,
    @Optional() @Inject(LOGGER) logger?: Logger,
  ) {
    this.cache = new InvalidatedCache(config.AUTH_CACHE_TTL_MS);
    const remote = {
      recordUses: async (tokenId: string, use: TokenUse) => {
        await client.call(IdentityService.method.recordTokenUses, { uses: [toTokenUsesMessage(tokenId, use)] });
      },
    };
    this.uses = new TokenUsageRecorder(remote, logger);
  }

  onModuleInit(): void {
    if (!this.cache.enabled) return;
    this.subscription = onBroadcast(
      this.transport,
      CredentialsChangedSchema,
      (changed) =>
        this.cache.invalidate([...changed.credentialIds.map(credentialTag), ...changed.userIds.map(userTag)]),
      // A revocation broadcast while NATS was unreachable never arrives.
      () => this.cache.clear(),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
    this.cache.clear();
    await this.uses.onModuleDestroy();
  }

  /** The cached caller of this token, or what `fetch` gets from agent-auth (then cached). */
  async authenticate(
    token: string,
    ip: string,
    fetch: () => Promise<FetchedAuthentication>,
  ): Promise<AuthenticatedCaller> {
    if (!this.cache.enabled) return (await fetch()).caller;
    const tokenHash = createHash('sha256').update(token, 'utf8').digest('hex');
    const cached = this.cache.get(tokenHash);
    if (cached) {
      // Usage analytics exist for personal access tokens; an agent grant keeps only its last use.
      if (cached.auth.credentialKind === 'pat') this.uses.record(cached.auth.credentialId, ip, new Date());
      return cached;
    }
    const startedAt = this.cache.begin();
    const { caller, expiresAt } = await fetch();
    this.cache.store(
      tokenHash,
      caller,
      [credentialTag(caller.auth.credentialId), userTag(caller.auth.userId)],
      startedAt,
      expiresAt?.getTime(),
    );
    return caller;
  }

  /** Sends the uses counted so far to agent-auth; resolves once they are stored. */
  flushUses(): Promise<void> {
    return this.uses.flush();
  }
}
