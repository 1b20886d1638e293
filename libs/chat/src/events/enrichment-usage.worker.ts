import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { FRAGMENT_EMBEDDED_EVENT, type FragmentEmbeddedPayload } from '@kw/contracts';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import { isUuid } from '@kw/platform-ids';
import type { Logger } from '@kw/platform-observability';
import { createEventBus, type EventBus, type EventSubscription } from '@kw/platform-outbox';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { ModelUsageRepository } from '../persistence/model-usage.repository.js';
import { AiHelpers } from '../service/ai-helpers/ai-helpers.js';

export const ENRICHMENT_USAGE_CONSUMER = 'chat-enrichment-usage';
const GENERATED_STEPS = new Set<string>(['summary', 'tags', 'graph']);

/**
 * Enrichment's usage (docs/ai-helpers.md#usage): the durable consumer `chat-enrichment-usage` of
 * `fragment.embedded` records each fragment's embedding as usage of the fragment's creator in
 * its workspace (kind `enrichment`, the chunks embedded), and one record for each summary, tags
 * or graph call of the same pass, keyed by the event's id so a redelivery records nothing more;
 * each record holds the tokens the provider reported for its call (the event's `tokens`). The fragments component does not wait for it, and a
 * deployment without the chat component (a Leaf) simply has no such consumer.
 */
@Injectable()
export class EnrichmentUsageWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private bus?: EventBus;
  private ownsBus = false;
  private subscription?: EventSubscription;

  constructor(
    private readonly usage: ModelUsageRepository,
    private readonly helpers: AiHelpers,
    @Inject(AI_PROVIDER) private readonly provider: AiProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const bus = await createEventBus(this.config, 'chat', this.logger);
    this.ownsBus = bus.kind === 'jetstream';
    await this.start(bus);
  }

  async start(bus: EventBus): Promise<void> {
    this.bus = bus;
    this.subscription = await bus.subscribe(
      {
        consumer: ENRICHMENT_USAGE_CONSUMER,
        eventTypes: [FRAGMENT_EMBEDDED_EVENT],
        concurrency: 2,
        ackWaitMs: 30_000,
        retryDelayMs: 2_000,
      },
      async ({ event }) => {
        const payload = event.payload as Partial<FragmentEmbeddedPayload>;
        if (!payload.createdBy || !isUuid(payload.createdBy)) return;
        const record = {
          userId: payload.createdBy,
          tokenId: '',
          credential: 'operator',
          provider: this.provider.name,
          kind: 'enrichment',
          inputTokens: 0,
          outputTokens: 0,
          images: 0,
          embeddings: 0,
          workspaceId: payload.workspaceId && isUuid(payload.workspaceId) ? payload.workspaceId : null,
          latencyMs: 0,
          status: 'ok',
        };
        const tokens = (step: string) => {
          const told = (payload.tokens as Record<string, { input?: unknown; output?: unknown }> | undefined)?.[step];
          return { inputTokens: tokenCount(told?.input), outputTokens: tokenCount(told?.output) };
        };
        await this.usage.insertForEvent(event.id, {
          ...record,
          ...tokens('embedding'),
          model: this.helpers.modelOf('embedding'),
          embeddings: Math.max(0, Number(payload.chunks) || 0),
        });
        // The pass's summary, tags and graph calls: one record each, keyed so a redelivery adds none.
        const generated = Array.isArray(payload.generated) ? payload.generated : [];
        for (const step of new Set(generated.filter((g) => GENERATED_STEPS.has(g))))
          await this.usage.insertForEvent(`${event.id}:${step}`, {
            ...record,
            ...tokens(step),
            model: this.helpers.modelOf(step === 'tags' ? 'tags' : 'summary'),
          });
      },
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.stop();
    // The in-process bus is the process's shared one: the fragments component closes it.
    if (this.ownsBus) await this.bus?.close();
  }
}

/** A token count from an event: a non-negative integer, else 0. */
function tokenCount(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), 2 ** 31 - 1) : 0;
}
