import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ModelUsageService } from '@kw/contracts';
import { requestContext, type RequestContext } from '@kw/platform-context';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { UncountedUsage } from '../uncounted-usage.js';

export interface UsageEntry {
  credential: string;
  model: string;
  provider: string;
  kind: 'chat' | 'image' | 'web_search';
  inputTokens: number;
  outputTokens: number;
  images: number;
  /** Web searches run. */
  searches?: number;
  latencyMs: number;
  status: 'ok' | 'upstream_error' | 'cancelled';
}

/** Records wait this long at most, so a busy caller's calls share one message and one insert. */
const FLUSH_AFTER_MS = 500;
/** The chat service takes at most 100 records per message. */
const BATCH_MAX = 100;

interface Pending {
  context: RequestContext;
  entries: UsageEntry[];
}

/**
 * Sends the records of model calls to the chat service after the answers went out, batched per
 * caller (the service records them for the caller of the message, so a batch never mixes two).
 * Recording never delays or fails the call it records; a lost batch is logged.
 */
@Injectable()
export class UsageRecorder implements OnModuleDestroy {
  private readonly pending = new Map<string, Pending>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly client: ServiceClient,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly uncounted: UncountedUsage,
  ) {}

  /**
   * The record is made for the caller of `context`: the request's, captured when the call began
   * (a stream ends in callbacks of its own, where the request's context may not be current).
   */
  record(entry: UsageEntry, context: RequestContext | undefined = requestContext.current()): void {
    if (!context?.auth?.userId) return;
    // The plan check counts it until the entitlements it reads include it.
    if (entry.kind === 'chat') this.uncounted.recorded(context.auth.userId, entry.inputTokens + entry.outputTokens);
    else if (entry.kind === 'image') this.uncounted.recorded(context.auth.userId, entry.images, 'images');
    const key = `${context.auth.userId}\u0000${context.auth.credentialId}`;
    let batch = this.pending.get(key);
    if (!batch) {
      batch = { context, entries: [] };
      this.pending.set(key, batch);
    }
    batch.entries.push(entry);
    if (batch.entries.length >= BATCH_MAX) this.send(key);
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS).unref();
  }

  /** Sends every pending batch. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    return Promise.all([...this.pending.keys()].map((key) => this.send(key))).then(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
  }

  private send(key: string): Promise<void> {
    const batch = this.pending.get(key);
    this.pending.delete(key);
    if (!batch || batch.entries.length === 0) return Promise.resolve();
    return requestContext
      .run(batch.context, () => this.client.call(ModelUsageService.method.recordUsage, { records: batch.entries }))
      .then(
        () => undefined,
        (err: unknown) => this.logger.warn({ err, records: batch.entries.length }, 'chat: usage records lost'),
      );
  }
}
