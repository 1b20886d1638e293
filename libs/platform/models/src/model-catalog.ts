import type { ModelInfo } from './model-info.js';
import type { UpstreamModel } from './model-provider.js';
import type { ProviderConfig, ProviderModelConfig } from './providers-config.js';

export const MODEL_DEFAULTS = {
  modality: 'chat',
  vision: false,
  reasoning: false,
  max_output_tokens: 4096,
  context_length: 8192,
} as const;

/**
 * The routable models: every provider's, public ids unique, hidden ones findable but not listed.
 * A model that lost its public id to an earlier provider is kept as a fallback stand-in: the
 * same model at two providers is the usual reason for a fallback.
 */
export class ModelCatalog {
  /** Sorted by id, hidden models left out. */
  readonly listed: ModelInfo[];

  constructor(
    private readonly byId: ReadonlyMap<string, ModelInfo>,
    hidden: ReadonlySet<string>,
    private readonly all: readonly ModelInfo[],
  ) {
    this.listed = [...byId.values()]
      .filter((m) => !hidden.has(m.id))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  find(id: string): ModelInfo | undefined {
    return this.byId.get(id);
  }

  /** The model of `provider` that can stand in for `model`: same family and modality, the same upstream id preferred. */
  standIn(model: ModelInfo, provider: string): ModelInfo | undefined {
    let best: ModelInfo | undefined;
    for (const candidate of this.all) {
      if (candidate.provider !== provider || candidate.family !== model.family || candidate.modality !== model.modality)
        continue;
      if (candidate.upstreamId === model.upstreamId) return candidate;
      if (!best || candidate.id < best.id) best = candidate;
    }
    return best;
  }
}

/**
 * Builds the catalog. Per model, each field comes from the operator's entry (exact `id` first,
 * else the first `match` glob), else the provider's metadata, else the defaults. Models declared
 * by `id` are always present; discovered ones only when the provider discovers. On a public id
 * collision the provider listed first in the configuration wins.
 */
export function buildCatalog(
  providers: readonly ProviderConfig[],
  discovered: ReadonlyMap<string, readonly UpstreamModel[]>,
): ModelCatalog {
  const byId = new Map<string, ModelInfo>();
  const hidden = new Set<string>();
  const all: ModelInfo[] = [];
  for (const provider of providers) {
    const upstream = new Map<string, UpstreamModel>();
    if (provider.discover)
      for (const m of discovered.get(provider.id) ?? []) if (!upstream.has(m.id)) upstream.set(m.id, m);
    for (const declared of provider.models)
      if (declared.id !== undefined && !upstream.has(declared.id)) upstream.set(declared.id, { id: declared.id });

    const globs = provider.models.flatMap((m) =>
      m.match !== undefined ? [{ entry: m, pattern: globToRegExp(m.match) }] : [],
    );
    for (const model of upstream.values()) {
      const id = provider.modelPrefix + model.id;
      const operator =
        provider.models.find((m) => m.id === model.id) ?? globs.find((g) => g.pattern.test(model.id))?.entry;
      const info = describe(provider, model, id, operator ?? {});
      all.push(info);
      if (byId.has(id)) continue;
      byId.set(id, info);
      if (operator?.hidden) hidden.add(id);
    }
  }
  return new ModelCatalog(byId, hidden, all);
}

function describe(
  provider: ProviderConfig,
  model: UpstreamModel,
  id: string,
  operator: ProviderModelConfig,
): ModelInfo {
  const info: ModelInfo = {
    id,
    owned_by: provider.id,
    display_name: operator.display_name ?? model.display_name ?? id,
    modality: operator.modality ?? model.modality ?? MODEL_DEFAULTS.modality,
    capabilities: {
      vision: operator.vision ?? model.vision ?? MODEL_DEFAULTS.vision,
      reasoning: operator.reasoning ?? model.reasoning ?? MODEL_DEFAULTS.reasoning,
      max_output_tokens: operator.max_output_tokens ?? model.max_output_tokens ?? MODEL_DEFAULTS.max_output_tokens,
      context_length: operator.context_length ?? model.context_length ?? MODEL_DEFAULTS.context_length,
    },
    provider: provider.id,
    upstreamId: model.id,
    family: operator.family ?? model.id,
  };
  if (operator.image_sizes) info.imageSizes = [...operator.image_sizes];
  return info;
}

/** `*` matches any run of characters; everything else is literal. */
export function globToRegExp(glob: string): RegExp {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}
