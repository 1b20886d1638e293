import { Inject, Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import type { TokenUse } from './token-use.js';

/** How long uses gather in memory before one write per token records them. */
export const TOKEN_USAGE_FLUSH_MS = 1_000;

/** Where recorded uses go: agent-auth's token table, or agent-auth itself over the bus. */
export interface TokenUseStore {
  recordUses(tokenId: string, use: TokenUse): Promise<void>;
}

export const TOKEN_USAGE_STORE = Symbol('platform.TokenUseStore');

/**
 * Records token use (last use, requests per UTC day) in batches instead of on every request:
 * a write per authenticated request serialized all of one token's requests on its row and
 * its daily counter (a row lock and a WAL flush each), on the hot path of every API call.
 * Uses gather per token and are written once a second, at shutdown, and before analytics are
 * read, so analytics lag by at most a second on other replicas; a crash loses that second.
 */
@Injectable()
export class TokenUsageRecorder implements OnModuleDestroy {
  private pending = new Map<string, TokenUse>();
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  /** Settable by tests. */
  flushEveryMs = TOKEN_USAGE_FLUSH_MS;

  constructor(
    @Inject(TOKEN_USAGE_STORE) private readonly store: TokenUseStore,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {}

  record(tokenId: string, ip: string, at: Date): void {
    const day = at.toISOString().slice(0, 10);
    const use = this.pending.get(tokenId) ?? { lastAt: at, lastIp: ip, requestsPerDay: new Map<string, number>() };
    if (at >= use.lastAt) {
      use.lastAt = at;
      use.lastIp = ip;
    }
    use.requestsPerDay.set(day, (use.requestsPerDay.get(day) ?? 0) + 1);
    this.pending.set(tokenId, use);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush().catch((err: unknown) => this.failed(err)), this.flushEveryMs);
      this.timer.unref?.();
    }
  }

  /** Writes everything recorded so far; resolves when it is stored (failures are kept for the next flush). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    // One flush at a time, in order: a later flush never overtakes an earlier one.
    this.writing = this.writing.catch(() => undefined).then(() => this.write(batch));
    return this.writing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush().catch((err: unknown) => this.logger?.warn({ err }, 'token usage not recorded at shutdown'));
  }

  /** The uses stay pending: retried a flush interval later. */
  private failed(err: unknown): void {
    this.logger?.warn({ err }, 'token usage not recorded; will retry');
    if (!this.timer && this.pending.size > 0) {
      this.timer = setTimeout(() => void this.flush().catch((e: unknown) => this.failed(e)), this.flushEveryMs);
      this.timer.unref?.();
    }
  }

  private async write(batch: Map<string, TokenUse>): Promise<void> {
    const uses = [...batch];
    for (let i = 0; i < uses.length; i++) {
      try {
        await this.store.recordUses(...uses[i]);
      } catch (err) {
        // This token's uses and those not tried yet wait for the next flush.
        for (const [tokenId, use] of uses.slice(i)) this.requeue(tokenId, use);
        throw err;
      }
    }
  }

  private requeue(tokenId: string, use: TokenUse): void {
    const newer = this.pending.get(tokenId);
    if (!newer) {
      this.pending.set(tokenId, use);
      return;
    }
    for (const [day, n] of use.requestsPerDay) newer.requestsPerDay.set(day, (newer.requestsPerDay.get(day) ?? 0) + n);
  }
}
