import { normalizeEntityName, type AiProvider, type GraphExtraction } from '@kw/platform-ai';
import { chunkText } from './chunking.js';
import type { EnrichmentTx } from './enrichment-db.js';
import { FRAGMENT_EMBEDDED_EVENT, type EnrichmentStep } from './enrichment-state.js';

/** What a step reads of the fragment (as loaded when the event was handled). */
export interface FragmentText {
  id: string;
  workspaceId: string;
  title: string;
  content: string;
  version: number;
  summarySource: string | null;
  enhanceTags: boolean;
}

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
      const vectors = await ai.embed(texts);
      return { step, chunks: texts.map((text, i) => ({ text, embedding: vectors[i] })) };
    }
    case 'graph':
      return { step, graph: await ai.extractGraph(fullText(fragment)) };
  }
}

/**
 * Writes a step's result. Every write replaces what an earlier run of the same step wrote, so
 * running a step twice (a redelivery after a crash) leaves the same rows: no duplicates.
 */
export async function applyStep(tx: EnrichmentTx, fragment: FragmentText, current: { tags: string[]; summarySource: string | null }, result: StepResult): Promise<void> {
  switch (result.step) {
    case 'summary':
      // A summary the user supplied is kept.
      if (current.summarySource === 'user') return;
      await tx.fragment.update({ where: { id: fragment.id }, data: { summary: result.summary, summarySource: 'ai' } });
      return;
    case 'tags': {
      // enhanceTags merges generated tags into the supplied ones; otherwise generated tags replace.
      const base = fragment.enhanceTags ? current.tags : [];
      const tags = [...new Set([...base, ...result.tags.map((t) => t.toLowerCase())])].slice(0, MAX_TAGS);
      await tx.fragment.update({ where: { id: fragment.id }, data: { tags } });
      return;
    }
    case 'embedding':
      await tx.fragmentChunk.deleteMany({ where: { fragmentId: fragment.id } });
      if (result.chunks.length > 0) {
        await tx.fragmentChunk.createMany({
          data: result.chunks.map((c, ordinal) => ({ fragmentId: fragment.id, workspaceId: fragment.workspaceId, ordinal, text: c.text, embedding: c.embedding, version: fragment.version })),
        });
      }
      // Same transaction as the chunks: an external vector index (Qdrant) follows them.
      await tx.outboxEvent.create({
        data: {
          aggregateType: 'fragment',
          aggregateId: fragment.id,
          eventType: FRAGMENT_EMBEDDED_EVENT,
          payload: { fragmentId: fragment.id, workspaceId: fragment.workspaceId, version: fragment.version, chunks: result.chunks.length, occurredAt: new Date().toISOString() },
          headers: {},
        },
      });
      return;
    case 'graph':
      await writeGraph(tx, fragment, result.graph);
      return;
  }
}

async function writeGraph(tx: EnrichmentTx, fragment: FragmentText, graph: GraphExtraction): Promise<void> {
  await tx.graphRelation.deleteMany({ where: { fragmentId: fragment.id } });
  await tx.graphMention.deleteMany({ where: { fragmentId: fragment.id } });
  if (graph.entities.length === 0) return;
  const key = (kind: string, name: string) => `${kind}\u0000${normalizeEntityName(name)}`;
  // Entities are shared by the workspace: created once, whoever mentions them first.
  await tx.graphEntity.createMany({
    data: graph.entities.map((e) => ({ workspaceId: fragment.workspaceId, kind: e.kind, name: e.name, normalizedName: normalizeEntityName(e.name) })),
    skipDuplicates: true,
  });
  const rows = await tx.graphEntity.findMany({
    where: { workspaceId: fragment.workspaceId, OR: graph.entities.map((e) => ({ kind: e.kind, normalizedName: normalizeEntityName(e.name) })) },
    select: { id: true, kind: true, normalizedName: true },
  });
  const ids = new Map(rows.map((r) => [`${r.kind}\u0000${r.normalizedName}`, r.id]));
  await tx.graphMention.createMany({
    data: [...new Set(rows.map((r) => r.id))].map((entityId) => ({ entityId, fragmentId: fragment.id })),
    skipDuplicates: true,
  });
  const relations = graph.relations
    .map((r) => ({ sourceId: ids.get(key(r.source.kind, r.source.name)), targetId: ids.get(key(r.target.kind, r.target.name)), kind: r.kind }))
    .filter((r): r is { sourceId: string; targetId: string; kind: string } => !!r.sourceId && !!r.targetId && r.sourceId !== r.targetId);
  if (relations.length > 0) {
    await tx.graphRelation.createMany({ data: relations.map((r) => ({ ...r, workspaceId: fragment.workspaceId, fragmentId: fragment.id })), skipDuplicates: true });
  }
}
