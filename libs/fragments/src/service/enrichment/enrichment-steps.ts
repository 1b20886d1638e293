import { FRAGMENT_TAG_MAX, FRAGMENT_TITLE_MAX } from '@kw/contracts';
import type { FragmentEmbeddedPayload } from '@kw/contracts';
import {
  chunkText,
  type AiProvider,
  type CallOptions,
  type ExtractedEntity,
  type GraphExtraction,
  type TokenUsage,
} from '@kw/platform-ai';
import type { FragmentText } from '../../persistence/rows.js';
import type { LockedFragment, StepWrite } from '../../persistence/enrichment.repository.js';
import { fragmentEmbeddedEvent } from '../../events/fragment-events.js';
import type { EnrichmentStep } from './enrichment-state.js';
import { withWikiLinks } from './wiki-links.js';

export type { FragmentText };

/** What a step computed, before it is written; `usage`: the tokens its provider reported, if any. */
export type StepResult = (
  | { step: 'summary'; summary: string }
  | { step: 'tags'; tags: string[] }
  | { step: 'embedding'; chunks: Array<{ text: string; embedding: number[] }> }
  | { step: 'graph'; graph: GraphExtraction }
) & { usage?: TokenUsage };

/** The tokens of a pass's results, per step, as the fragment.embedded event tells them. */
export type PassTokens = NonNullable<FragmentEmbeddedPayload['tokens']>;

export function passTokens(results: StepResult[]): PassTokens {
  const tokens: PassTokens = {};
  for (const r of results) if (r.usage) tokens[r.step] = { input: r.usage.inputTokens, output: r.usage.outputTokens };
  return tokens;
}

export const MAX_TAGS = 50;
const GENERATED_TAGS = 8;

/**
 * The longest entity name the graph keeps: a title's limit. A longer one (a blob pasted between
 * [[ ]], a URL of thousands of characters) names nothing a reader would look up, and would not fit
 * the graph's unique index (its write would fail, and with it the fragment's enrichment).
 */
export const ENTITY_NAME_MAX = FRAGMENT_TITLE_MAX;
/** Relation kinds are words ('co_occurs', 'links_to'); a provider's longer ones are dropped. */
const KIND_MAX = 64;

function fullText(f: FragmentText): string {
  return f.title ? `${f.title}\n\n${f.content}` : f.content;
}

/** Calls the AI provider for one step (outside any transaction: it may be slow or fail). */
export async function computeStep(step: EnrichmentStep, fragment: FragmentText, ai: AiProvider): Promise<StepResult> {
  let usage: TokenUsage | undefined;
  const options: CallOptions = {
    onUsage: (u) => {
      usage = {
        inputTokens: (usage?.inputTokens ?? 0) + u.inputTokens,
        outputTokens: (usage?.outputTokens ?? 0) + u.outputTokens,
      };
    },
  };
  const result = await computeResult(step, fragment, ai, options);
  return usage ? { ...result, usage } : result;
}

async function computeResult(
  step: EnrichmentStep,
  fragment: FragmentText,
  ai: AiProvider,
  options: CallOptions,
): Promise<StepResult> {
  switch (step) {
    case 'summary':
      return { step, summary: await ai.summarize(fullText(fragment), options) };
    case 'tags':
      return { step, tags: await ai.generateTags(fullText(fragment), GENERATED_TAGS, options) };
    case 'embedding': {
      const texts = chunkText(fullText(fragment));
      const vectors = await ai.embed(texts, 'document', options);
      return { step, chunks: texts.map((text, i) => ({ text, embedding: vectors[i] })) };
    }
    case 'graph':
      return {
        step,
        graph: storableGraph(
          withWikiLinks(await ai.extractGraph(fullText(fragment)), fragment.title, fragment.content),
        ),
      };
  }
}

/** The graph without entities the graph cannot store, nor relations that touch them. */
function storableGraph(graph: GraphExtraction): GraphExtraction {
  const fits = (e: ExtractedEntity) => e.name.trim() !== '' && e.name.length <= ENTITY_NAME_MAX;
  return {
    entities: graph.entities.filter(fits),
    relations: graph.relations.filter(
      (r) => fits(r.source) && fits(r.target) && r.kind !== '' && r.kind.length <= KIND_MAX,
    ),
  };
}

/** Generated tags as a user could have typed them: trimmed, lower-case, within the tag limit. */
function storableTags(tags: string[]): string[] {
  return tags.map((t) => t.trim().toLowerCase()).filter((t) => t !== '' && t.length <= FRAGMENT_TAG_MAX);
}

/**
 * What a step's result writes, given the fragment as locked for the write (the user may have
 * changed its summary or tags meanwhile). Undefined when nothing is written.
 */
export function stepWrite(
  fragment: FragmentText,
  current: LockedFragment,
  result: StepResult,
  /** The pass's other model calls, told with the embedding (usage counts them). */
  generated: Array<'summary' | 'tags' | 'graph'> = [],
  /** The tokens the pass's calls reported, told with the embedding too. */
  tokens: PassTokens = {},
): StepWrite | undefined {
  switch (result.step) {
    case 'summary':
      // A summary the user supplied is kept.
      return current.summarySource === 'user' ? undefined : { step: 'summary', summary: result.summary };
    case 'tags': {
      // enhanceTags merges generated tags into the supplied ones; otherwise generated tags replace.
      const base = fragment.enhanceTags ? current.tags : [];
      // A generated word longer than a tag may be (a key, a blob) is no tag, and would not fit the tag index.
      const tags = [...new Set([...base, ...storableTags(result.tags)])].slice(0, MAX_TAGS);
      return { step: 'tags', tags };
    }
    case 'embedding':
      return {
        step: 'embedding',
        chunks: result.chunks,
        event: fragmentEmbeddedEvent(fragment, result.chunks.length, generated, tokens),
      };
    case 'graph':
      return { step: 'graph', graph: result.graph };
  }
}
