import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { PollingLoop } from '@kw/platform-outbox';
import { LOGGER } from '@kw/platform-runtime';
import { WorkspaceMovesRepository } from '../../persistence/workspace-moves.repository.js';
import { CloudLeftoverRemoval } from './cloud-leftover-removal.js';

/** A refused purge (an aborted move's import still writing) is tried again this soon. */
const SWEEP_EVERY_MS = 5_000;
const BATCH = 100;

/**
 * Retries the removal of the Cloud's leftover copies of finished moves until it succeeds: a
 * purge that failed when the move ended (most often an abort racing the move's import, whose
 * last batch is still being written) must not leave a Leaf workspace's content in the Cloud,
 * nor block the workspace's next move. Every purge step is idempotent, so instances of the
 * workspaces component sweeping together only repeat one another.
 */
@Injectable()
export class CloudLeftoverSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;

  constructor(
    private readonly moves: WorkspaceMovesRepository,
    private readonly removal: CloudLeftoverRemoval,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop(() => this.sweep(), {
      intervalMs: SWEEP_EVERY_MS,
      maxErrorPauseMs: 60_000,
      onError: (err, retryInMs) =>
        this.logger.warn({ err, retryInMs }, 'sweeping the Cloud copies of finished moves failed'),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass; never true (a leftover still refused is retried after the pause, not at once). */
  async sweep(): Promise<boolean> {
    for (const move of await this.moves.cloudLeftovers(BATCH)) await this.removal.remove(move);
    return false;
  }
}
