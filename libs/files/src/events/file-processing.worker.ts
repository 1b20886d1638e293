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
import { processFile } from '../service/process-file.js';
import { ProcessingJobs } from '../service/processing-jobs.js';

/** The durable consumer every files replica shares. */
export const PROCESSING_CONSUMER = 'files-processing';
/** A file that failed for other reasons than its content this often is marked failed. */
const MAX_ATTEMPTS = 3;
const PROGRESS_EVERY_MS = 500;
/** A file that failed for other reasons than its content is tried again after this pause. */
const RETRY_AFTER_MS = 2_000;
/** Workspaces whose turn is remembered; one forgotten counts as not served lately (first in line). */
const SERVED_REMEMBERED = 1_000;

export const FILE_EXTRACTION_LIMITS = Symbol('FILE_EXTRACTION_LIMITS');

/**
 * Processes uploaded files. The processing rows are the queue: a `file.uploaded` event, a
 * finished file and a slow loop only wake the dispatcher, which fills this process's free
 * slots (FILES_PROCESSING_SLOTS) with ProcessingRepository.claimNext, fair between workspaces.
 * A file nobody holds (never claimed, or its worker died) is claimed like any other once its
 * lease has run out: that is how processing resumes after a restart. The lease makes one worker
 * process a file at a time; the result is written only while the file is still processing, so
 * a cancel or a delete in between wins, and processing again replaces the chunks (idempotent).
 */
@Injectable()
export class FileProcessingWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: EventSubscription;
  private readonly dispatch: PollingLoop;
  /** A worker holds a file this long, renewed while it works; a crashed worker's files are taken over after it. */
  private readonly leaseMs: number;
  private readonly slots: number;
  private busy = 0;
  private stopping = false;
  /** Workspaces in the order this process last took a file of theirs (the oldest first): whose turn it is. */
  private readonly served = new Set<string>();

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
    this.slots = config.FILES_PROCESSING_SLOTS;
    // The slow loop finds what no wake-up announced here: another replica's event, a released or abandoned file.
    this.dispatch = new PollingLoop(() => this.fillSlots(), {
      intervalMs: Math.min(5_000, this.leaseMs),
      maxErrorPauseMs: 5 * 60_000,
      onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'file processing dispatch failed'),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    // The event only says there is work: the committed row is what gets processed (at least once).
    this.subscription = await this.bus.subscribe(
      { consumer: PROCESSING_CONSUMER, eventTypes: [FILE_UPLOADED_EVENT] },
      async () => this.dispatch.poke(),
    );
    this.dispatch.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.subscription?.stop();
    await this.dispatch.stop();
    // Files stopped mid-way go back at once: the next process takes them over without waiting for the lease.
    for (const id of this.jobs.abortAll()) await this.processing.release(id).catch(() => undefined);
    if (this.bus.kind === 'jetstream') await this.bus.close();
  }

  /** Claims waiting files, fairest first, while this process has a free slot. */
  private async fillSlots(): Promise<boolean> {
    while (this.busy < this.slots && !this.stopping) {
      const claimed = await this.processing.claimNext(this.leaseMs, [...this.served]);
      if (!claimed) break;
      const { id, workspaceId } = claimed;
      this.served.delete(workspaceId);
      this.served.add(workspaceId);
      if (this.served.size > SERVED_REMEMBERED) this.served.delete(this.served.values().next().value!);
      this.busy++;
      // Registered at once, so a cancel, a delete or a shutdown finds it from its claim on.
      const signal = this.jobs.start(id);
      void this.process(id, signal)
        .catch((err: unknown) => this.logger.warn({ err, fileId: id }, 'file processing failed'))
        .finally(() => {
          this.jobs.finish(id);
          this.busy--;
          this.dispatch.poke();
        });
    }
    return false;
  }

  /** Processes one file this process has claimed. */
  private async process(fileId: string, signal: AbortSignal): Promise<void> {
    const file = await this.processing.findById(fileId);
    if (!file || file.status !== 'processing' || signal.aborted) return;
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
      if (signal.aborted) return;
      // False when a cancel or a delete won in the meantime: nothing was written.
      if (!(await this.processing.finish(file.id, file.workspaceId, result.chunks, result.textTruncated))) return;
      this.logger.info({ fileId: file.id, kind: file.kind, chunks: result.chunks.length }, 'file processed');
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ExtractionError) {
        // The extractor's message names parser internals: logged here, the user reads the reason's.
        this.logger.info({ err, fileId: file.id, reason: err.reason }, 'file could not be read');
        await this.processing.fail(file.id, err.reason);
      } else if (file.attempts >= MAX_ATTEMPTS) {
        this.logger.warn({ err, fileId: file.id }, 'file processing failed for good');
        await this.processing.fail(file.id, 'processing_error');
      } else {
        this.logger.warn({ err, fileId: file.id, attempt: file.attempts }, 'file processing failed, will retry');
        // Held a little longer instead of released: the retry waits RETRY_AFTER_MS, not a hot loop.
        await this.processing.renew(file.id, RETRY_AFTER_MS);
      }
    } finally {
      clearInterval(renew);
    }
  }
}

export const extractionLimitsProvider = {
  provide: FILE_EXTRACTION_LIMITS,
  useFactory: (config: AppConfig): ExtractionLimits => ({
    ...DEFAULT_EXTRACTION_LIMITS,
    timeoutMs: config.FILES_EXTRACTION_TIMEOUT_MS,
    maxDocxXmlBytes: config.FILES_DOCX_MAX_XML_BYTES,
  }),
  inject: [APP_CONFIG],
};
