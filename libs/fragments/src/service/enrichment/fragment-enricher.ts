import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import type { Logger } from '@kw/platform-observability';
import type { DomainEvent } from '@kw/platform-outbox';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import { EnrichmentRepository, type StepWrite } from '../../persistence/enrichment.repository.js';
import {
  ENRICHMENT_CONSUMER,
  readEnrichment,
  stepsToRun,
  readFragmentEventPayload,
  type EnrichmentStep,
  type StepState,
} from './enrichment-state.js';
import { computeStep, passTokens, stepWrite, type FragmentText, type StepResult } from './enrichment-steps.js';
import { withRetry } from './retry.js';

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
    private readonly enrichment: EnrichmentRepository,
    @Inject(AI_PROVIDER) private readonly ai: AiProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** `deliveryCount`: this event's delivery, from 1 (the bus counts redeliveries). */
  async handle(event: DomainEvent, deliveryCount = 1): Promise<void> {
    const payload = readFragmentEventPayload(event.payload);
    if (!payload) {
      this.logger.warn(
        { eventId: event.id, eventType: event.eventType },
        'fragment event without a usable payload; skipped',
      );
      await this.enrichment.markProcessed(ENRICHMENT_CONSUMER, event.id);
      return;
    }
    if (await this.enrichment.wasProcessed(ENRICHMENT_CONSUMER, event.id)) return;
    const row = await this.enrichment.loadText(payload.fragmentId);
    if (!row || row.version > payload.version) {
      await this.enrichment.markProcessed(ENRICHMENT_CONSUMER, event.id);
      return;
    }
    const fragment: FragmentText = {
      id: row.id,
      workspaceId: row.workspaceId,
      createdBy: row.createdBy,
      title: row.title,
      content: row.content,
      version: payload.version,
      summarySource: row.summarySource,
      enhanceTags: row.enhanceTags,
    };
    // Steps done (or given up) for this version on an earlier delivery are not redone.
    const outcomes: StepOutcome[] = [];
    for (const step of stepsToRun(payload, readEnrichment(row.enrichment)))
      outcomes.push(await this.compute(step, fragment, payload.version));
    const states = Object.fromEntries(outcomes.map((o) => [o.step, o.state]));
    const generated = outcomes
      .map((o) => o.result?.step)
      .filter(
        (step): step is 'summary' | 'tags' | 'graph' => step === 'summary' || step === 'tags' || step === 'graph',
      );
    const tokens = passTokens(outcomes.flatMap((o) => (o.result ? [o.result] : [])));
    // Processed by another delivery meanwhile, or the fragment moved on: the repository writes nothing.
    try {
      await this.enrichment.writeResults(ENRICHMENT_CONSUMER, event.id, fragment, payload.version, states, (locked) =>
        outcomes
          .map(({ result }) => (result ? stepWrite(fragment, locked, result, generated, tokens) : undefined))
          .filter((write): write is StepWrite => write !== undefined),
      );
    } catch (err) {
      // Redelivered (a dropped connection heals) until the attempts run out; then a result the
      // database refuses on every delivery must not hold the fragment in `processing` forever.
      if (deliveryCount < this.config.ENRICHMENT_MAX_ATTEMPTS) throw err;
      this.logger.error(
        { err, fragmentId: fragment.id, deliveryCount },
        'enrichment results could not be stored; publishing the fragment with those steps failed',
      );
      const at = new Date().toISOString();
      const unstored = Object.fromEntries(
        outcomes.map(({ step, state, result }): [EnrichmentStep, StepState] => [
          step,
          result ? { ...state, state: 'failed', error: 'its result could not be stored', at } : state,
        ]),
      );
      await this.enrichment.writeResults(ENRICHMENT_CONSUMER, event.id, fragment, payload.version, unstored, () => []);
    }
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
}
