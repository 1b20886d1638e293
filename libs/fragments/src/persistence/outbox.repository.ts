import { Inject, Injectable } from '@nestjs/common';
import { OutboxRelay, type EventBus, type EventLogger, type OutboxRelayOptions } from '@kw/platform-outbox';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';

/** The component's outbox (data.outbox): its rows are written with each change by the other repositories. */
@Injectable()
export class OutboxRepository {
  constructor(@Inject(FRAGMENTS_DB) private readonly db: DataDb) {}

  /** A relay publishing the outbox's rows to `bus`, over the component's client. */
  relayTo(bus: EventBus, logger: EventLogger, options: OutboxRelayOptions): OutboxRelay {
    return new OutboxRelay(this.db, bus, logger, options);
  }
}
