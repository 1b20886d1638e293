import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { SearchQueriesRepository } from '../../persistence/search-queries.repository.js';

export interface LoggedQuery {
  workspaceId: string;
  userId: string;
  query: string;
  mode: string;
  resultCount: number;
  durationMs: number;
}

/** The query as analytics groups it: trimmed, single spaces, lower case. */
export function normalizeQuery(query: string): string {
  return query.trim().replace(/\s+/g, ' ').toLowerCase().slice(0, 500);
}

/**
 * Records each workspace search for the owners' analytics. The search answers without waiting
 * for the write (it cost a round trip on every first page, and on the embedded database a turn
 * of its one connection); a failure is logged and never fails the search. The analytics of this
 * process read after its writes in flight (`settled`); another replica's show up once written.
 */
@Injectable()
export class SearchQueryLog implements OnApplicationShutdown {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly queries: SearchQueriesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  record(entry: LoggedQuery): void {
    const write: Promise<void> = this.queries
      .insert({ ...entry, query: normalizeQuery(entry.query) })
      .catch((err: unknown) => this.logger.warn({ err, workspaceId: entry.workspaceId }, 'search query not recorded'))
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  /** Resolves once every write this process started has ended (never rejects). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }
}
