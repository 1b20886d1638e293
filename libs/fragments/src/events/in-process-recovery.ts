import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { EventBus } from '@kw/platform-outbox';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { EnrichmentRepository } from '../persistence/enrichment.repository.js';
import { readEnrichment, stepsToRecover } from '../service/enrichment/enrichment-state.js';
import { EVENT_BUS } from './event-bus.provider.js';
import { enrichmentRequestedEvent } from './fragment-events.js';

/** Fragments requeued per statement at start-up. */
const BATCH = 500;

/**
 * The in-process bus (embedded mode, Leaf) keeps nothing across a restart: events it had taken
 * from the outbox but not handled yet are gone if the process dies. At start, every fragment
 * still `processing` gets a new enrichment request through the outbox; steps already done for
 * its version are not run again, so a fragment that was merely waiting loses nothing either.
 * JetStream keeps unacknowledged events itself, so the distributed mode needs no such scan.
 */
@Injectable()
export class InProcessEnrichmentRecovery implements OnApplicationBootstrap {
  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly enrichment: EnrichmentRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.bus.kind !== 'in-process') return;
    let requeued = 0;
    let cursor: string | undefined;
    for (;;) {
      const stuck = await this.enrichment.findProcessing(cursor, BATCH);
      if (stuck.length === 0) break;
      const occurredAt = new Date().toISOString();
      await this.enrichment.appendEvents(
        stuck.map((f) =>
          enrichmentRequestedEvent(f, stepsToRecover(readEnrichment(f.enrichment), f.version), occurredAt),
        ),
      );
      requeued += stuck.length;
      cursor = stuck[stuck.length - 1].id;
    }
    if (requeued > 0) this.logger.info({ requeued }, 'requeued enrichment of fragments the last run left processing');
  }
}
