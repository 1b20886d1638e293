import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { FRAGMENT_DELETED_EVENT } from '@kw/contracts';
import type { Logger } from '@kw/platform-observability';
import { EVENT_BUS, type EventBus, type EventSubscription } from '@kw/platform-outbox';
import { LOGGER } from '@kw/platform-runtime';
import { FilesRepository } from '../persistence/files.repository.js';

/** The durable consumer every files replica shares. */
export const FRAGMENT_DELETIONS_CONSUMER = 'files-fragment-deletions';

/**
 * A fragment deleted for good (`fragment.deleted` with `deletion: permanent`) leaves no
 * attachment behind: a file's `fragmentIds` would otherwise name a fragment that answers 404.
 * An archived fragment keeps its attachments (it stays readable and can be restored).
 * Idempotent, so a redelivered event changes nothing.
 */
@Injectable()
export class FragmentDeletionsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: EventSubscription;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly files: FilesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe(
      { consumer: FRAGMENT_DELETIONS_CONSUMER, eventTypes: [FRAGMENT_DELETED_EVENT] },
      async ({ event }) => {
        if (event.payload.deletion !== 'permanent') return;
        const fragmentId = typeof event.payload.fragmentId === 'string' ? event.payload.fragmentId : event.aggregateId;
        const detached = await this.files.detachFragment(fragmentId);
        if (detached > 0) this.logger.info({ fragmentId, detached }, 'attachments of a deleted fragment removed');
      },
    );
  }

  async onModuleDestroy(): Promise<void> {
    // The processing worker may have closed a JetStream bus already.
    await this.subscription?.stop().catch(() => undefined);
  }
}
