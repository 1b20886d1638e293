import { chunkText, type AiProvider, type GraphExtraction } from '@kw/platform-ai';
import type { FragmentText } from '../../persistence/rows.js';
import type { LockedFragment, StepWrite } from '../../persistence/enrichment.repository.js';
import { fragmentEmbeddedEvent } from '../../events/fragment-events.js';
import type { EnrichmentStep } from './enrichment-state.js';
import { withWikiLinks } from './wiki-links.js';

export type { FragmentText };

/** What a step computed, before it is written. */
export type StepResult =
  | { step: 'summary'; summary: string }
  | { step: 'tags'; tags: string[] }
  | { step: 'embedding'; chunks: Array<{ text: string; embedding: number[] }> }
  | { step: 'graph'; graph: GraphExtraction };

export const MAX_TAGS = 50;
const GENERATED_TAGS = 8;

function fullText(f: FragmentText): string {
  return f.title ? `${f.title}\n\n${f.content}` : f.content;
}

/** Calls the AI provider for one step (outside any transaction: it may be slow or fail). */
export async function computeStep(step: EnrichmentStep, fragment: FragmentText, ai: AiProvider): Promise<StepResult> {
  switch (step) {
    case 'summary':
      return { step, summary: await ai.summarize(fullText(fragment)) };
    case 'tags':
      return { step, tags: await ai.generateTags(fullText(fragment), GENERATED_TAGS) };
    case 'embedding': {
      const texts = chunkText(fullText(fragment));
      const vectors = await ai.embed(texts, 'document');
      return { step, chunks: texts.map((text, i) => ({ text, embedding: vectors[i] })) };
    }
    case 'graph':
      return {
        step,
        graph: withWikiLinks(await ai.extractGraph(fullText(fragment)), fragment.title, fragment.content),
      };
  }
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
): StepWrite | undefined {
  switch (result.step) {
    case 'summary':
      // A summary the user supplied is kept.
      return current.summarySource === 'user' ? undefined : result;
    case 'tags': {
      // enhanceTags merges generated tags into the supplied ones; otherwise generated tags replace.
      const base = fragment.enhanceTags ? current.tags : [];
      const tags = [...new Set([...base, ...result.tags.map((t) => t.toLowerCase())])].slice(0, MAX_TAGS);
      return { step: 'tags', tags };
    }
    case 'embedding':
      return { ...result, event: fragmentEmbeddedEvent(fragment, result.chunks.length, generated) };
    case 'graph':
      return result;
  }
}
