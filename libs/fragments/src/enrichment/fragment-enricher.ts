import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import type { Logger } from '@kw/platform-observability';
import { recordProcessedEvent, wasEventProcessed, type DomainEvent } from '@kw/platform-outbox';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import { ENRICHMENT_DB, TX_OPTIONS, type EnrichmentDb, type EnrichmentTx } from './enrichment-db.js';
import {
  ENRICHMENT_CONSUMER,
  readEnrichment,
  stepsToRun,
  readFragmentEventPayload,
  type EnrichmentStep,
  type FragmentEventPayload,
  type StepState,
} from './enrichment-state.js';
import { applyStep, computeStep, type FragmentText, type StepResult } from './enrichment-steps.js';
import { withRetry } from './retry.js';

interface LockedRow {
  version: number;
  tags: string[];
  summary_source: string | null;
}

/** A step's result and the state recorded for it. */
interface StepOutcome {
  step: EnrichmentStep;
  state: StepState;
  result?: StepResult;
}

/**
 * Handles one fragment event: computes the steps it needs (each retried on its own, outside
 * any transaction), then writes every result, each step's state, the publish and the
 * processed-event record in one transaction. An event older than the fragment is skipped: the
 * newer version's event does the work. One transaction per fragment instead of one per step
 * (plus one to publish) roughly halves the database round trips of enrichment, which were
 * most of its CPU; the price is that a crash between computing and writing redoes the steps of
 * that one fragment (each write replaces what an earlier run wrote, so nothing is doubled).
 */
@Injectable()
export class FragmentEnricher {
  constructor(
    @Inject(ENRICHMENT_DB) private readonly db: EnrichmentDb,
    @Inject(AI_PROVIDER) private readonly ai: AiProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async handle(event: DomainEvent): Promise<void> {
    const payload = readFragmentEventPayload(event.payload);
    if (!payload) {
      this.logger.warn(
        { eventId: event.id, eventType: event.eventType },
        'fragment event without a usable payload; skipped',
      );
      await this.markProcessed(event.id);
      return;
    }
    if (await wasEventProcessed(this.db, ENRICHMENT_CONSUMER, event.id)) return;
    const [row] = await this.db.$queryRaw<Array<FragmentText & { enrichment: unknown }>>`
      SELECT id::text AS id, workspace_id::text AS "workspaceId", title, content, version, summary_source AS "summarySource", enhance_tags AS "enhanceTags", enrichment
        FROM data.fragments WHERE id = ${payload.fragmentId}::uuid`;
    if (!row || row.version > payload.version) {
      await this.markProcessed(event.id);
      return;
    }
    const fragment: FragmentText = { ...row, version: payload.version };
    // Steps done (or given up) for this version on an earlier delivery are not redone.
    const outcomes: StepOutcome[] = [];
    for (const step of stepsToRun(payload, readEnrichment(row.enrichment)))
      outcomes.push(await this.compute(step, fragment, payload.version));
    await this.db.$transaction(async (tx) => {
      const locked = await this.lock(tx, payload);
      // Processed by another delivery meanwhile, or the fragment moved on: nothing to write.
      if (!(await recordProcessedEvent(tx, ENRICHMENT_CONSUMER, event.id)) || !locked) return;
      for (const { result } of outcomes)
        if (result) await applyStep(tx, fragment, { tags: locked.tags, summarySource: locked.summary_source }, result);
      const states = Object.fromEntries(outcomes.map((o) => [o.step, o.state]));
      // Published even with a failed step: the fragment stays readable, the failure is in `enrichment`.
      await tx.$executeRaw`UPDATE data.fragments SET enrichment = enrichment || ${JSON.stringify(states)}::jsonb, status = 'published'
        WHERE id = ${fragment.id}::uuid AND version = ${payload.version}`;
    }, TX_OPTIONS);
  }

  private async compute(step: EnrichmentStep, fragment: FragmentText, version: number): Promise<StepOutcome> {
    const outcome = await withRetry(
      () => computeStep(step, fragment, this.ai),
      { maxAttempts: this.config.ENRICHMENT_MAX_ATTEMPTS, baseDelayMs: this.config.ENRICHMENT_RETRY_BASE_MS },
      (attempt, err) =>
        this.logger.warn({ err, fragmentId: fragment.id, step, attempt }, 'enrichment step failed; retrying'),
    );
    const at = new Date().toISOString();
    if (outcome.ok)
      return { step, state: { state: 'done', attempts: outcome.attempts, version, at }, result: outcome.value };
    this.logger.error(
      { fragmentId: fragment.id, step, attempts: outcome.attempts, error: outcome.error },
      'enrichment step failed for good; recorded on the fragment',
    );
    return { step, state: { state: 'failed', attempts: outcome.attempts, version, error: outcome.error, at } };
  }

  /** Locks the fragment row if it is still at the event's version. */
  private async lock(tx: EnrichmentTx, payload: FragmentEventPayload): Promise<LockedRow | undefined> {
    const rows = await tx.$queryRaw<
      LockedRow[]
    >`SELECT version, tags, summary_source FROM data.fragments WHERE id = ${payload.fragmentId}::uuid FOR UPDATE`;
    const row = rows[0];
    return row && row.version === payload.version ? row : undefined;
  }

  private async markProcessed(eventId: string): Promise<void> {
    await recordProcessedEvent(this.db, ENRICHMENT_CONSUMER, eventId);
  }
}
