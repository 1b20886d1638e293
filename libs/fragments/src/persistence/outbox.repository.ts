import { Inject, Injectable } from '@nestjs/common';
import { OutboxRelay, type EventBus, type EventLogger, type OutboxRelayOptions } from '@kw/platform-outbox';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** The component's outbox (data.outbox): its rows are written with each change by the other repositories. */
@Injectable()
export class OutboxRepository {
  /** The process's pool (never null where the fragments component runs: FRAGMENTS_DB needs it too). */
  constructor(@Inject(DATABASE) private readonly database: Pick<Database, 'pool'>) {}

  /** A relay publishing the outbox's rows to `bus`, over the process's pool. */
  relayTo(bus: EventBus, logger: EventLogger, options: OutboxRelayOptions): OutboxRelay {
    return new OutboxRelay(this.database.pool, bus, logger, options);
  }
}
