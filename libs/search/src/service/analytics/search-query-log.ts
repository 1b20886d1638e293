import { Inject, Injectable } from '@nestjs/common';
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

/** Records each workspace search for the owners' analytics; a failure never fails the search. */
@Injectable()
export class SearchQueryLog {
  constructor(
    private readonly queries: SearchQueriesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async record(entry: LoggedQuery): Promise<void> {
    await this.queries
      .insert({ ...entry, query: normalizeQuery(entry.query) })
      .catch((err: unknown) => this.logger.warn({ err, workspaceId: entry.workspaceId }, 'search query not recorded'));
  }
}
