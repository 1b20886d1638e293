import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { PollingLoop } from '@kw/platform-outbox';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { TransfersRepository } from '../persistence/transfers.repository.js';

const SWEEP_EVERY_MS = 15 * 60_000;
const BATCH = 100;

/**
 * An export's archive holds the whole workspace, so it is not kept for ever: at start and then
 * every 15 minutes (more often for a short EXPORT_ARCHIVE_TTL_MS), the archives of exports that
 * finished longer ago than that are deleted and the exports become `expired`.
 */
@Injectable()
export class ExportArchiveExpiry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;
  private readonly ttlMs: number;

  constructor(
    private readonly transfers: TransfersRepository,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'EXPORT_ARCHIVE_TTL_MS'>,
  ) {
    this.ttlMs = config.EXPORT_ARCHIVE_TTL_MS;
    const intervalMs = Math.min(SWEEP_EVERY_MS, Math.max(1000, Math.floor(this.ttlMs / 2)));
    this.loop = new PollingLoop(
      async () => {
        const expired = await this.sweep();
        if (expired > 0) this.logger.info({ expired }, 'export archives expired');
        // A full batch: more may be due at once.
        return expired === BATCH;
      },
      {
        intervalMs,
        maxErrorPauseMs: SWEEP_EVERY_MS,
        onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'export archive expiry failed'),
      },
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** Expires what is due now; the number of archives deleted. The row changes after the blob is gone. */
  async sweep(now = new Date()): Promise<number> {
    const due = await this.transfers.expiringExports(new Date(now.getTime() - this.ttlMs), BATCH);
    for (const { id, archiveKey } of due) {
      await this.storage.delete(archiveKey!);
      await this.transfers.markExpired(id);
    }
    return due.length;
  }
}
