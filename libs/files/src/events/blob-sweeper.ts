import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { PollingLoop } from '@kw/platform-outbox';
import { LOGGER } from '@kw/platform-runtime';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { ORPHAN_BLOB_GRACE_MS, UPLOAD_RESERVATION_TTL_MS } from '../files-limits.js';
import { ProcessingRepository } from '../persistence/processing.repository.js';

const SWEEP_EVERY_MS = 15 * 60_000;
const BATCH = 100;

export interface SweepOptions {
  now?: Date;
  reservationTtlMs?: number;
  orphanGraceMs?: number;
}

export interface SweepResult {
  reservations: number;
  orphans: number;
}

/**
 * Keeps storage and metadata in step after crashes: an upload whose reservation never completed
 * (the client vanished, the process died mid-stream) loses its row and blob; a blob without a
 * row (the process died between the blob and the row, or between deleting the row and the
 * blob) is deleted once older than a grace period that covers an upload in flight.
 */
@Injectable()
export class BlobSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;

  constructor(
    private readonly processing: ProcessingRepository,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop(
      async () => {
        const swept = await this.sweep();
        if (swept.reservations || swept.orphans) this.logger.info(swept, 'swept abandoned uploads and orphan blobs');
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

  async sweep(options: SweepOptions = {}): Promise<SweepResult> {
    const now = options.now ?? new Date();
    const ttl = options.reservationTtlMs ?? UPLOAD_RESERVATION_TTL_MS;
    const grace = options.orphanGraceMs ?? ORPHAN_BLOB_GRACE_MS;
    let reservations = 0;
    for (const stale of await this.processing.staleReservations(new Date(now.getTime() - ttl), 1_000)) {
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
      if (now.getTime() - blob.lastModified.getTime() < grace) continue;
      batch.push(blob.key);
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length) await flush();
    return { reservations, orphans };
  }
}
