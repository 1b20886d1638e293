import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { PollingLoop } from '@kw/platform-outbox';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { BLOB_STORAGE, LocalDiskStorage, type BlobStorage } from '@kw/platform-storage';
import { ProcessingRepository } from '../persistence/processing.repository.js';

const SWEEP_EVERY_MS = 15 * 60_000;
const BATCH = 100;

export interface SweepResult {
  reservations: number;
  orphans: number;
  partials: number;
}

/**
 * Keeps storage and metadata in step after crashes, at start and every 15 minutes. Once older
 * than FILES_SWEEP_AFTER_MS: an upload whose reservation never completed (the client vanished,
 * the process died mid-stream) loses its row and its blob; a blob without a row (the process
 * died between deleting a file's row and its blob) is deleted; a partial local write too.
 */
@Injectable()
export class BlobSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;
  private readonly afterMs: number;

  constructor(
    private readonly processing: ProcessingRepository,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.afterMs = config.FILES_SWEEP_AFTER_MS;
    this.loop = new PollingLoop(
      async () => {
        const swept = await this.sweep();
        if (swept.reservations || swept.orphans || swept.partials) {
          this.logger.info(swept, 'swept abandoned uploads and orphan blobs');
        }
        return false;
      },
      {
        intervalMs: SWEEP_EVERY_MS,
        maxErrorPauseMs: SWEEP_EVERY_MS,
        onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'blob sweep failed'),
      },
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  async sweep(now = new Date()): Promise<SweepResult> {
    const before = new Date(now.getTime() - this.afterMs);
    let reservations = 0;
    for (const stale of await this.processing.staleReservations(before, 1_000)) {
      await this.storage.delete(stale.storageKey);
      await this.processing.dropStaleReservation(stale.id);
      reservations++;
    }
    let orphans = 0;
    let batch: string[] = [];
    const flush = async () => {
      const known = await this.processing.knownKeys(batch);
      for (const key of batch.filter((k) => !known.has(k))) {
        await this.storage.delete(key);
        orphans++;
      }
      batch = [];
    };
    for await (const blob of this.storage.list('files/')) {
      if (blob.lastModified >= before) continue;
      batch.push(blob.key);
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length) await flush();
    const partials = this.storage instanceof LocalDiskStorage ? await this.storage.sweepPartials(this.afterMs) : 0;
    return { reservations, orphans, partials };
  }
}
