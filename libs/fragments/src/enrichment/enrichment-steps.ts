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
export async function applyStep(
  tx: EnrichmentTx,
  fragment: FragmentText,
  current: { tags: string[]; summarySource: string | null },
  result: StepResult,
): Promise<void> {
  switch (result.step) {
    // Raw statements for the hot writes: through Prisma's query builder, a chunk's vector
    // alone cost more CPU than the rest of the step (enrichment is bound by this process's CPU).
    case 'summary':
      // A summary the user supplied is kept.
      if (current.summarySource === 'user') return;
      await tx.$executeRaw`UPDATE data.fragments SET summary = ${result.summary}, summary_source = 'ai', updated_at = now() WHERE id = ${fragment.id}::uuid`;
      return;
    case 'tags': {
      // enhanceTags merges generated tags into the supplied ones; otherwise generated tags replace.
      const base = fragment.enhanceTags ? current.tags : [];
      const tags = [...new Set([...base, ...result.tags.map((t) => t.toLowerCase())])].slice(0, MAX_TAGS);
      await tx.$executeRaw`UPDATE data.fragments SET tags = ${tags}::text[], updated_at = now() WHERE id = ${fragment.id}::uuid`;
      return;
    }
    case 'embedding':
      await tx.$executeRaw`DELETE FROM data.fragment_chunks WHERE fragment_id = ${fragment.id}::uuid`;
      if (result.chunks.length > 0) {
        const texts = result.chunks.map((c) => c.text);
        const vectors = result.chunks.map((c) => `{${c.embedding.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}}`);
        await tx.$executeRaw`INSERT INTO data.fragment_chunks (fragment_id, workspace_id, ordinal, text, embedding, version)
          SELECT ${fragment.id}::uuid, ${fragment.workspaceId}::uuid, c.ordinal - 1, c.text, c.embedding::float4[], ${fragment.version}
            FROM unnest(${texts}::text[], ${vectors}::text[]) WITH ORDINALITY AS c(text, embedding, ordinal)`;
      }
      // Same transaction as the chunks: an external vector index (Qdrant) follows them.
      await tx.$executeRaw`INSERT INTO data.outbox (aggregate_type, aggregate_id, event_type, payload, headers)
        VALUES ('fragment', ${fragment.id}, ${FRAGMENT_EMBEDDED_EVENT}, ${JSON.stringify({ fragmentId: fragment.id, workspaceId: fragment.workspaceId, version: fragment.version, chunks: result.chunks.length, occurredAt: new Date().toISOString() })}::jsonb, '{}'::jsonb)`;
      return;
    case 'graph':
      await writeGraph(tx, fragment, result.graph);
      return;
  }
}

async function writeGraph(tx: EnrichmentTx, fragment: FragmentText, graph: GraphExtraction): Promise<void> {
  await tx.$executeRaw`WITH relations AS (DELETE FROM data.graph_relations WHERE fragment_id = ${fragment.id}::uuid)
    DELETE FROM data.graph_mentions WHERE fragment_id = ${fragment.id}::uuid`;
  if (graph.entities.length === 0) return;
  const key = (kind: string, normalized: string) => `${kind}\u0000${normalized}`;
  const kinds = graph.entities.map((e) => e.kind);
  const names = graph.entities.map((e) => e.name);
  const normalized = graph.entities.map((e) => normalizeEntityName(e.name));
  // Entities are shared by the workspace: created once, whoever mentions them first (no row
  // is locked, so enrichments mentioning the same entities never wait for each other).
  await tx.$executeRaw`INSERT INTO data.graph_entities (workspace_id, kind, name, normalized_name)
    SELECT ${fragment.workspaceId}::uuid, e.kind, e.name, e.normalized FROM unnest(${kinds}::text[], ${names}::text[], ${normalized}::text[]) AS e(kind, name, normalized)
    ON CONFLICT (workspace_id, kind, normalized_name) DO NOTHING`;
  const rows = await tx.$queryRaw<Array<{ id: string; kind: string; normalized_name: string }>>`
    SELECT id::text AS id, kind, normalized_name FROM data.graph_entities
     WHERE workspace_id = ${fragment.workspaceId}::uuid AND (kind, normalized_name) IN (SELECT * FROM unnest(${kinds}::text[], ${normalized}::text[]))`;
  const ids = new Map(rows.map((r) => [key(r.kind, r.normalized_name), r.id]));
  const relations = graph.relations
    .map((r) => ({
      sourceId: ids.get(key(r.source.kind, normalizeEntityName(r.source.name))),
      targetId: ids.get(key(r.target.kind, normalizeEntityName(r.target.name))),
      kind: r.kind,
    }))
    .filter(
      (r): r is { sourceId: string; targetId: string; kind: string } =>
        !!r.sourceId && !!r.targetId && r.sourceId !== r.targetId,
    );
  const entityIds = [...new Set(rows.map((r) => r.id))];
  await tx.$executeRaw`WITH relations AS (
      INSERT INTO data.graph_relations (workspace_id, source_id, target_id, kind, fragment_id)
      SELECT ${fragment.workspaceId}::uuid, r.source, r.target, r.kind, ${fragment.id}::uuid
        FROM unnest(${relations.map((r) => r.sourceId)}::uuid[], ${relations.map((r) => r.targetId)}::uuid[], ${relations.map((r) => r.kind)}::text[]) AS r(source, target, kind)
      ON CONFLICT (source_id, target_id, kind, fragment_id) DO NOTHING
    )
    INSERT INTO data.graph_mentions (entity_id, fragment_id) SELECT e, ${fragment.id}::uuid FROM unnest(${entityIds}::uuid[]) AS e
    ON CONFLICT (entity_id, fragment_id) DO NOTHING`;
}
