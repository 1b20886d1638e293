import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { createEventBus, type EventBus, type EventSubscription } from '@kw/platform-outbox';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { VectorSyncRepository } from '../persistence/vector-sync.repository.js';
import { VECTOR_INDEX_SYNC, type VectorIndexSync } from '../service/vector/vector-index.js';
import { FRAGMENT_EMBEDDED_EVENT, VECTOR_SYNC_CONSUMER, VECTOR_SYNC_EVENTS, VectorIndexSyncer } from './vector-sync.js';

const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 300_000;

/**
 * Feeds an external vector index (Qdrant) in the search component: the durable consumer
 * `search-vector-index` of `fragment.embedded` and `fragment.deleted` (JetStream; on the
 * in-process bus `fragment.embedded` and a periodic sweep of removals), and a background
 * backfill at start for what was embedded before (or while the index was unreachable).
 * With pgvector or exact cosine (the index reads Postgres) it writes nothing; in the embedded
 * mode it still takes fragment.embedded, so the in-process bus does not keep those for nobody.
 */
@Injectable()
export class VectorIndexSyncWorker implements OnApplicationBootstrap, OnModuleDestroy {
  readonly syncer: VectorIndexSyncer;
  private bus?: EventBus;
  private ownsBus = false;
  private subscription?: EventSubscription;
  private backfillRun?: Promise<void>;
  private backfillLoop?: Promise<void>;
  private stopping = false;
  /** How often the embedded mode removes archived fragments' points (see start). */
  sweepIntervalMs = 60_000;
  private wake?: () => void;

  constructor(
    @Inject(VECTOR_INDEX_SYNC) private readonly index: VectorIndexSync,
    store: VectorSyncRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.syncer = new VectorIndexSyncer(store, index);
  }

  async onApplicationBootstrap(): Promise<void> {
    const inProcess = !(this.config.RUN_MODE === 'distributed' && this.config.NATS_URL);
    // JetStream keeps events without a consumer anyway: no connection when there is nothing to write.
    if (!this.index.external && !inProcess) return;
    const bus = await createEventBus(this.config, 'search', this.logger);
    this.ownsBus = bus.kind === 'jetstream';
    await this.start(bus);
  }

  /** Subscribes and, for an external index, starts the backfill (the bus is given by tests). */
  async start(bus: EventBus): Promise<void> {
    this.bus = bus;
    // On the in-process bus only fragment.embedded (which nobody else consumes) is taken: that
    // bus keeps an event for later subscribers only while no consumer of its type exists, and
    // fragment.deleted is also the webhooks' event, so subscribing to it first could take
    // start-up events from them. Removals then come from a periodic sweep (below).
    const takesDeletes = bus.kind === 'jetstream';
    const eventTypes = this.index.external && takesDeletes ? VECTOR_SYNC_EVENTS : [FRAGMENT_EMBEDDED_EVENT];
    this.subscription = await bus.subscribe(
      { consumer: VECTOR_SYNC_CONSUMER, eventTypes, concurrency: 4, ackWaitMs: 60_000, retryDelayMs: 2_000 },
      async ({ event }) => {
        if (!this.index.external) return;
        const fragmentId = typeof event.payload.fragmentId === 'string' ? event.payload.fragmentId : event.aggregateId;
        await this.syncer.syncFragment(fragmentId);
      },
    );
    if (!this.index.external) return;
    this.logger.info({ bus: bus.kind, consumer: VECTOR_SYNC_CONSUMER }, 'vector index sync started');
    this.backfillRun = this.runBackfill();
    this.backfillLoop = this.backfillRun.then(() => (takesDeletes ? undefined : this.sweepLoop()));
  }

  /** Resolves when the backfill run is over (tests). */
  async backfillDone(): Promise<void> {
    await this.backfillRun;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.subscription?.stop();
    await this.backfillLoop;
    // The in-process bus is the process's shared one: the fragments component closes it.
    if (this.ownsBus) await this.bus?.close();
  }

  /** Runs the backfill to the end, retrying with backoff while the index is unreachable. */
  private async runBackfill(): Promise<void> {
    for (let failures = 0; !this.stopping; failures++) {
      try {
        this.logger.info('vector index backfill started');
        await this.syncer.backfill({
          shouldStop: () => this.stopping,
          onProgress: (p, done) =>
            this.logger.info(
              { ...p },
              done
                ? this.stopping
                  ? 'vector index backfill stopped'
                  : 'vector index backfill done'
                : 'vector index backfill progress',
            ),
        });
        return;
      } catch (err) {
        const retryInMs = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** failures);
        this.logger.warn({ err, retryInMs }, 'vector index backfill failed; will resume where it stopped');
        await this.sleep(retryInMs);
      }
    }
  }

  /** In-process bus: removes archived, deleted or emptied fragments every `sweepIntervalMs`. */
  private async sweepLoop(): Promise<void> {
    while (!this.stopping) {
      await this.sleep(this.sweepIntervalMs);
      if (this.stopping) return;
      try {
        const { deleted } = await this.syncer.backfill({ onlyGone: true, shouldStop: () => this.stopping });
        if (deleted > 0) this.logger.info({ deleted }, 'vector index: removed archived or deleted fragments');
      } catch (err) {
        this.logger.warn({ err }, 'vector index sweep failed; will retry');
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
