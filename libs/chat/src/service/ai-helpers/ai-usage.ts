import { Inject, Injectable } from '@nestjs/common';
import type { GetUsageRequest } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { ConfigError } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { invalidField } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import {
  ModelUsageRepository,
  USAGE_DIMENSIONS,
  type UsageDimension,
  type UsageSum,
} from '../../persistence/model-usage.repository.js';
import { requireAccount } from '../chat-caller.js';
import { requirePlatformAdmin } from '../platform-admin.js';

/** One model's prices in AI_PRICES. */
interface ModelPrice {
  inputPer1kTokens?: number;
  outputPer1kTokens?: number;
  perImage?: number;
  perSearch?: number;
  per1kEmbeddings?: number;
}

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
const PAGE_MAX = 1000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `/api/ai/usage` (docs/ai-helpers.md#usage): the usage records of chat, images, helpers and web
 * search, summed per the dimensions asked, with a cost estimate from the operator's price
 * table. A user sees their own; with `workspaceId`, a workspace owner sees everyone's in it
 * (anyone else only their own there); `allUsers` is for platform administrators.
 */
@Injectable()
export class AiUsage {
  private readonly prices: Record<string, ModelPrice>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: ModelUsageRepository,
    private readonly gate: WorkspaceGate,
    private readonly client: ServiceClient,
  ) {
    this.prices = parsePrices(config.AI_PRICES);
  }

  async query(input: GetUsageRequest, context: RequestContext, now = new Date()) {
    const caller = requireAccount(context, 'chat:use');
    const to = input.to ? day(input.to, 'to') : now;
    const toExclusive = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()) + DAY_MS);
    const from = input.from ? day(input.from, 'from') : new Date(toExclusive.getTime() - 30 * DAY_MS);
    if (from >= toExclusive) throw invalidField('from', 'must not be after to');
    if (toExclusive.getTime() - from.getTime() > MAX_DAYS * DAY_MS)
      throw invalidField('from', `at most ${MAX_DAYS} days`);
    const groupBy = [...new Set(input.groupBy)];
    const unknown = groupBy.filter((g) => !(g in USAGE_DIMENSIONS));
    if (unknown.length > 0) throw invalidField('groupBy', `unknown dimensions: ${unknown.join(', ')}`);
    const limit = input.limit === 0 ? 100 : input.limit;
    if (limit > PAGE_MAX) throw invalidField('limit', `1 to ${PAGE_MAX}`);

    let userId: string | undefined = caller.userId;
    if (input.allUsers) {
      await requirePlatformAdmin(this.client, context);
      userId = undefined;
    }
    if (input.workspaceId !== undefined) {
      if (!isUuid(input.workspaceId)) throw invalidField('workspaceId', 'must be a workspace id');
      const gate = await this.gate.authorize(context, input.workspaceId, 'workspaces:read');
      if (gate.relation === 'owner') userId = undefined;
    }

    const query = {
      from,
      to: toExclusive,
      userId,
      workspaceId: input.workspaceId,
      capability: input.capability,
      model: input.model,
    };
    const page = await this.usage.sums({ ...query, groupBy: groupBy as UsageDimension[], limit, offset: input.offset });
    const totals = await this.usage.sums({ ...query, groupBy: ['model'], limit: PAGE_MAX, offset: 0 });
    const priced = (row: UsageSum) => ({ ...row, estimatedCost: this.cost(row) });
    const total = totals.rows.reduce(
      (sum, r) => ({
        requests: sum.requests + r.requests,
        inputTokens: sum.inputTokens + r.inputTokens,
        outputTokens: sum.outputTokens + r.outputTokens,
        images: sum.images + r.images,
        searches: sum.searches + r.searches,
        embeddings: sum.embeddings + r.embeddings,
        estimatedCost: sum.estimatedCost + this.cost(r),
      }),
      { requests: 0, inputTokens: 0, outputTokens: 0, images: 0, searches: 0, embeddings: 0, estimatedCost: 0 },
    );
    return {
      rows: page.rows.map(priced),
      totalCount: page.total,
      totals: { day: '', model: '', capability: '', credentialId: '', workspaceId: '', ...total },
      currency: this.config.AI_PRICES_CURRENCY,
    };
  }

  /** The estimate for a row: by its model's prices (a row not grouped by model has none). */
  private cost(row: UsageSum): number {
    const price = this.prices[row.model];
    if (!price) return 0;
    const value =
      (row.inputTokens / 1000) * (price.inputPer1kTokens ?? 0) +
      (row.outputTokens / 1000) * (price.outputPer1kTokens ?? 0) +
      row.images * (price.perImage ?? 0) +
      row.searches * (price.perSearch ?? 0) +
      (row.embeddings / 1000) * (price.per1kEmbeddings ?? 0);
    return Math.round(value * 1e6) / 1e6;
  }
}

function day(text: string, field: string): Date {
  const date = DAY.test(text) ? new Date(`${text}T00:00:00Z`) : new Date(NaN);
  // Date rolls 2026-02-30 over to March 2: a day that does not exist comes back as another one.
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text)
    throw invalidField(field, 'must be a UTC day that exists, YYYY-MM-DD');
  return date;
}

const PRICE_KEYS = ['inputPer1kTokens', 'outputPer1kTokens', 'perImage', 'perSearch', 'per1kEmbeddings'];

function parsePrices(text: string | undefined): Record<string, ModelPrice> {
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(['AI_PRICES: not valid JSON']);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(['AI_PRICES: must be an object keyed by model']);
  for (const [model, price] of Object.entries(value)) {
    if (!price || typeof price !== 'object') throw new ConfigError([`AI_PRICES.${model}: must be an object`]);
    for (const [key, amount] of Object.entries(price))
      if (!PRICE_KEYS.includes(key) || typeof amount !== 'number' || amount < 0)
        throw new ConfigError([`AI_PRICES.${model}.${key}: unknown, or not a non-negative number`]);
  }
  return value as Record<string, ModelPrice>;
}
