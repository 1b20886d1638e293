import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { ChunkVectorsRepository } from '../../persistence/vectors/chunk-vectors.repository.js';
import { MemoryVectorIndex } from './memory-vector-index.js';
import { VECTOR_INDEX, type VectorIndex } from './vector-index.js';

/** How often a long warm-up reports progress. */
const PROGRESS_EVERY_MS = 5_000;

/**
 * Fills the in-process vector index at start-up, in the background, largest workspaces first
 * until the memory budget is full: otherwise the first search of a large workspace after a
 * start loads all its vectors (about 10 s at 100k notes here) and can outlast the service
 * timeout. A search that arrives while its workspace is loading waits for that load instead
 * of reading the vectors a second time. Progress goes to the log; a failure only means the
 * remaining workspaces load at their first search.
 */
@Injectable()
export class VectorIndexWarmup implements OnApplicationBootstrap, OnModuleDestroy {
  private stopping = false;
  private run?: Promise<void>;

  constructor(
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    private readonly chunks: ChunkVectorsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (!(this.index instanceof MemoryVectorIndex)) return;
    const index = this.index;
    this.run = this.warmAll(index).catch((err: unknown) =>
      this.logger.warn({ err }, 'vector index warm-up failed; workspaces load at their first search'),
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.run;
  }

  /** Resolves when the warm-up is over (tests). */
  async done(): Promise<void> {
    await this.run;
  }

  private async warmAll(index: MemoryVectorIndex): Promise<void> {
    const started = Date.now();
    const rows = await this.chunks.workspacesBySize();
    if (rows.length === 0) return;
    this.logger.info({ workspaces: rows.length }, 'vector index warm-up started');
    let loaded = 0;
    let lastReport = started;
    for (const { id } of rows) {
      if (this.stopping) break;
      // Largest first: the first workspace that does not fit beside the others ends the run.
      if (!(await index.warm(id))) break;
      loaded++;
      if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
        lastReport = Date.now();
        this.logger.info(
          { loaded, workspaces: rows.length, heldMb: Math.round((index.heldFloats * 4) / 1048576) },
          'vector index warm-up progress',
        );
      }
    }
    this.logger.info(
      {
        loaded,
        workspaces: rows.length,
        heldMb: Math.round((index.heldFloats * 4) / 1048576),
        elapsedMs: Date.now() - started,
      },
      this.stopping ? 'vector index warm-up stopped' : 'vector index warm-up done',
    );
  }
}
