import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { PollingLoop } from '@kw/platform-outbox';
import { LOGGER } from '@kw/platform-runtime';
import { AgentClaimsRepository } from '../persistence/agent-claims.repository.js';
import { AgentGrantsRepository } from '../persistence/agent-grants.repository.js';
import { OAuthApplicationsRepository } from '../persistence/oauth-applications.repository.js';
import { OAuthAuthorizationsRepository } from '../persistence/oauth-authorizations.repository.js';
import { SeenJwtIdsRepository } from '../persistence/seen-jwt-ids.repository.js';

const SWEEP_EVERY_MS = 60_000;
/** Rows per statement; a full batch runs the next pass at once. */
export const SWEEP_BATCH = 1_000;

/**
 * Forgets what agent authentication keeps only for a while: JWT ids past their expiry, agent
 * tokens expired for a day and the revoked grants they leave empty, claims and authorization
 * requests that ended a day ago, dynamically registered clients left unused. At start, then
 * every minute. Each request used to sweep its own table on the way (three statements on
 * every token exchange); a loop keeps those deletes off the requests. Replicas sweep side by
 * side: each skips the rows another holds.
 */
@Injectable()
export class ExpiredRowsSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;

  constructor(
    private readonly seenJwtIds: SeenJwtIdsRepository,
    private readonly grants: AgentGrantsRepository,
    private readonly claims: AgentClaimsRepository,
    private readonly authorizations: OAuthAuthorizationsRepository,
    private readonly applications: OAuthApplicationsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop(
      async () => {
        const swept = await this.sweep();
        const total = Object.values(swept).reduce((a, b) => a + b, 0);
        if (total > 0) this.logger.info(swept, 'forgot expired agent authentication rows');
        return Object.values(swept).some((n) => n >= SWEEP_BATCH);
      },
      {
        intervalMs: SWEEP_EVERY_MS,
        maxErrorPauseMs: 15 * SWEEP_EVERY_MS,
        onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'agent authentication sweep failed'),
      },
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass over every table, up to SWEEP_BATCH rows each; how many rows each lost. */
  async sweep(now = new Date()) {
    return {
      jwtIds: await this.seenJwtIds.sweepExpired(now, SWEEP_BATCH),
      grantsAndTokens: await this.grants.sweepExpired(now, SWEEP_BATCH),
      claims: await this.claims.sweepExpired(now, SWEEP_BATCH),
      authorizations: await this.authorizations.sweepEnded(now, SWEEP_BATCH),
      applications: await this.applications.sweepUnused(now, SWEEP_BATCH),
    };
  }
}
