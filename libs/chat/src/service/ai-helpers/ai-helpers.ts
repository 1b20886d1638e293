import { Inject, Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import { AI_PROVIDER, AiProviderError, type AiProvider, type CallOptions, type TokenUsage } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { planLimitError } from '@kw/platform-entitlements';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { ModelUsageRepository } from '../../persistence/model-usage.repository.js';
import { requireAccount } from '../chat-caller.js';
import { Plans } from '../plans/plans.js';

/** What a helper works on: a text, or a fragment the caller may read. */
export interface HelperInput {
  text?: string;
  fragmentId?: string;
}

export const EMBED_MAX_TEXTS = 100;
export const HELPER_TEXT_MAX = 200_000;

/**
 * The AI helpers: what the platform's AI provider (the one enrichment uses, AI_PROVIDER) makes
 * of a text or a fragment (docs/ai-helpers.md). A fragment is read through the fragments
 * contract as the caller, so a fragment the caller may not read is 404 as everywhere. Every
 * call is recorded as usage (kind embedding, summary or tags; its workspace when a fragment).
 */
@Injectable()
export class AiHelpers {
  constructor(
    @Inject(AI_PROVIDER) private readonly provider: AiProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly client: ServiceClient,
    private readonly usage: ModelUsageRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly plans: Plans,
  ) {}

  /** The model behind a capability, as usage records and answers name it. */
  modelOf(capability: 'embedding' | 'summary' | 'tags'): string {
    if (this.provider.name !== 'openai')
      return `${this.provider.name}-${capability === 'embedding' ? 'embedding' : 'text'}`;
    return capability === 'embedding' ? this.config.AI_EMBEDDING_MODEL : this.config.AI_CHAT_MODEL;
  }

  async embed(texts: string[], context: RequestContext, inputType?: string) {
    const caller = requireAccount(context, 'chat:use');
    if (inputType !== undefined && inputType !== 'query' && inputType !== 'document')
      throw invalidField('inputType', 'query or document');
    if (texts.length === 0 || texts.length > EMBED_MAX_TEXTS)
      throw invalidField('input', `1 to ${EMBED_MAX_TEXTS} texts`);
    if (texts.some((t) => t.length === 0 || t.length > HELPER_TEXT_MAX))
      throw invalidField('input', `each text has 1 to ${HELPER_TEXT_MAX} characters`);
    const vectors = await this.run(
      'embedding',
      caller,
      context,
      null,
      (options) => this.provider.embed(texts, inputType, options),
      { embeddings: texts.length },
    );
    return {
      provider: this.provider.name,
      model: this.modelOf('embedding'),
      dimension: vectors[0]?.length ?? 0,
      vectors: vectors.map((values) => ({ values })),
    };
  }

  async summarize(input: HelperInput, context: RequestContext) {
    const caller = requireAccount(context, 'chat:use');
    const { text, workspaceId } = await this.textOf(input);
    const summary = await this.run('summary', caller, context, workspaceId, (options) =>
      this.provider.summarize(text, options),
    );
    return { summary, provider: this.provider.name, model: this.modelOf('summary') };
  }

  async tag(input: HelperInput & { max: number }, context: RequestContext) {
    const caller = requireAccount(context, 'chat:use');
    const max = input.max === 0 ? 8 : input.max;
    if (max < 1 || max > 50) throw invalidField('max', '1 to 50');
    const { text, workspaceId } = await this.textOf(input);
    const tags = await this.run('tags', caller, context, workspaceId, (options) =>
      this.provider.generateTags(text, max, options),
    );
    return { tags, provider: this.provider.name, model: this.modelOf('tags') };
  }

  /** The text to work on; a fragment's title and content, read as the caller. */
  private async textOf(input: HelperInput): Promise<{ text: string; workspaceId: string | null }> {
    if ((input.text === undefined) === (input.fragmentId === undefined))
      throw invalidField('text', 'give exactly one of text and fragmentId');
    if (input.text !== undefined) {
      if (input.text.length === 0 || input.text.length > HELPER_TEXT_MAX)
        throw invalidField('text', `1 to ${HELPER_TEXT_MAX} characters`);
      return { text: input.text, workspaceId: null };
    }
    const { fragment } = await this.client.call(FragmentsService.method.getFragment, { fragmentId: input.fragmentId! });
    return { text: `${fragment!.title}\n\n${fragment!.content}`, workspaceId: fragment!.workspaceId };
  }

  /**
   * Runs a provider call and records it, failed or not. A provider failure is a 502 in the
   * platform's words (the path and status, a timeout): what the provider said goes to the log
   * only, its key scrubbed, as on /api/v1 (docs/errors.md, UPSTREAM_ERROR). The record holds
   * the tokens the provider reported, which the plan's monthly token budget counts; a spent
   * budget refuses the call before the provider is asked, as a chat completion is
   * (docs/plans.md).
   */
  private async run<T>(
    kind: 'embedding' | 'summary' | 'tags',
    caller: { userId: string; tokenId: string },
    context: RequestContext,
    workspaceId: string | null,
    call: (options: CallOptions) => Promise<T>,
    counts: { embeddings?: number } = {},
  ): Promise<T> {
    await this.requireBudget(context);
    const started = performance.now();
    let status = 'ok';
    const tokens: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    const onUsage = (usage: TokenUsage) => {
      tokens.inputTokens += usage.inputTokens;
      tokens.outputTokens += usage.outputTokens;
    };
    try {
      return await call({ onUsage });
    } catch (err) {
      status = 'upstream_error';
      const known = err instanceof AiProviderError;
      this.logger.warn(
        {
          provider: this.provider.name,
          capability: kind,
          upstreamStatus: known ? err.status : undefined,
          error: known ? err.message : String((err as Error)?.message ?? err).slice(0, 300),
          providerSaid: known ? err.providerSaid : undefined,
        },
        'AI provider failed',
      );
      throw new AppError({
        status: 502,
        code: ErrorCode.UPSTREAM_ERROR,
        message: `The AI provider (${this.provider.name}) failed${known ? `: ${err.message}` : ''}`,
      });
    } finally {
      await this.usage.insertMany([
        {
          userId: caller.userId,
          tokenId: caller.tokenId,
          credential: 'operator',
          model: this.modelOf(kind),
          provider: this.provider.name,
          kind,
          inputTokens: tokens.inputTokens,
          outputTokens: tokens.outputTokens,
          images: 0,
          embeddings: status === 'ok' ? (counts.embeddings ?? 0) : 0,
          workspaceId,
          latencyMs: Math.round(performance.now() - started),
          status,
        },
      ]);
    }
  }

  /** 403 PLAN_LIMIT_REACHED when the caller's plan has a monthly token budget and it is spent. */
  private async requireBudget(context: RequestContext): Promise<void> {
    const { tokensRemaining, resetsAt } = await this.plans.entitlements(context);
    if (tokensRemaining !== undefined && tokensRemaining <= 0)
      throw planLimitError('monthlyTokens', `Your plan's monthly token budget is spent; it resets at ${resetsAt}`, {
        resetsAt,
      });
  }
}
