import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { EVENT_BUS, PollingLoop, type EventBus, type EventSubscription } from '@kw/platform-outbox';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { FILE_UPLOADED_EVENT } from '../persistence/files.repository.js';
import { ProcessingRepository } from '../persistence/processing.repository.js';
import { ExtractionError } from '../service/extraction/extraction-errors.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits } from '../service/extraction/extraction-limits.js';
import { failureMessageFor } from '../service/failure-messages.js';
import { processFile } from '../service/process-file.js';
import { ProcessingJobs } from '../service/processing-jobs.js';

/** The durable consumer every files replica shares. */
export const PROCESSING_CONSUMER = 'files-processing';
/** A file that failed for other reasons than its content this often is marked failed. */
const MAX_ATTEMPTS = 3;
const PROGRESS_EVERY_MS = 500;

export const FILE_EXTRACTION_LIMITS = Symbol('FILE_EXTRACTION_LIMITS');

/**
 * Processes uploaded files: `file.uploaded` events from the bus, and, through a slow loop, any
 * processing file nobody holds (its event was lost with a killed process, or its worker died):
 * that is how processing resumes after a restart. The lease makes one worker process a file at
 * a time; the result is written only while the file is still processing, so a cancel or a
 * delete in between wins, and processing again replaces the chunks (idempotent).
 */
@Injectable()
export class FileProcessingWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: EventSubscription;
  private readonly resume: PollingLoop;
  /** A worker holds a file this long, renewed while it works; a crashed worker's files are taken over after it. */
  private readonly leaseMs: number;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly processing: ProcessingRepository,
    private readonly jobs: ProcessingJobs,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(AI_PROVIDER) private readonly ai: AiProvider,
    @Inject(FILE_EXTRACTION_LIMITS) private readonly limits: ExtractionLimits,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.leaseMs = config.FILES_PROCESSING_LEASE_MS;
    this.resume = new PollingLoop(() => this.resumeUnclaimed(), {
      intervalMs: Math.min(30_000, this.leaseMs),
      maxErrorPauseMs: 5 * 60_000,
      onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'file processing resume pass failed'),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe(
      { consumer: PROCESSING_CONSUMER, eventTypes: [FILE_UPLOADED_EVENT], concurrency: 2, ackWaitMs: 10 * 60_000 },
      async ({ event }) => {
        const fileId = typeof event.payload.fileId === 'string' ? event.payload.fileId : '';
        if (fileId) await this.process(fileId);
      },
    );
    this.resume.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.stop();
    await this.resume.stop();
    // Files stopped mid-way go back at once: the next process takes them over without waiting for the lease.
    for (const id of this.jobs.abortAll()) await this.processing.release(id).catch(() => undefined);
    if (this.bus.kind === 'jetstream') await this.bus.close();
  }

  /** Processes one file if it is processing and free; answers whether this call did the work. */
  async process(fileId: string): Promise<boolean> {
    const file = await this.processing.claim(fileId, this.leaseMs);
    if (!file) return false;
    const signal = this.jobs.start(file.id);
    let lastProgress = 0;
    const renew = setInterval(() => {
      void this.processing.renew(file.id, this.leaseMs).catch(() => undefined);
    }, this.leaseMs / 3);
    try {
      const result = await processFile(file, this.storage, this.ai, this.limits, {
        signal,
        onProgress: (done, total) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = now;
          void this.processing.progress(file.id, done, total).catch(() => undefined);
        },
      });
      if (signal.aborted) return true;
      await this.processing.finish(file.id, file.workspaceId, result.chunks, result.textTruncated);
      this.logger.info({ fileId: file.id, kind: file.kind, chunks: result.chunks.length }, 'file processed');
    } catch (err) {
      if (signal.aborted) return true;
      if (err instanceof ExtractionError) {
        // The extractor's message names parser internals: logged here, the user reads the reason's.
        this.logger.info({ err, fileId: file.id, reason: err.reason }, 'file could not be read');
        await this.processing.fail(file.id, err.reason, failureMessageFor(err.reason));
      } else if (file.attempts >= MAX_ATTEMPTS) {
        this.logger.warn({ err, fileId: file.id }, 'file processing failed for good');
        await this.processing.fail(file.id, 'processing_error', failureMessageFor('processing_error'));
      } else {
        this.logger.warn({ err, fileId: file.id, attempt: file.attempts }, 'file processing failed, will retry');
        await this.processing.release(file.id);
        throw err;
      }
    } finally {
      clearInterval(renew);
      this.jobs.finish(file.id);
    }
    return true;
  }

  private async resumeUnclaimed(): Promise<boolean> {
    const ids = await this.processing.unclaimed(10);
    for (const id of ids) await this.process(id).catch(() => undefined);
    return false;
  }
}

export const extractionLimitsProvider = { provide: FILE_EXTRACTION_LIMITS, useValue: DEFAULT_EXTRACTION_LIMITS };
