import { Inject, Injectable } from '@nestjs/common';
import { FragmentListingService } from '@kw/contracts';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { GraphRepository, type EntityRow } from '../../persistence/graph.repository.js';
import { traverse } from '../graph/graph-traversal.js';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import {
  AGENTIC_CANDIDATES,
  AGENTIC_MAX_LEADS,
  AGENTIC_MAX_LEADS_DEFAULT,
  AGENTIC_SNIPPET_CHARS,
} from '../../search-limits.js';
import { AgenticRepository } from '../../persistence/agentic.repository.js';
import { LeadBoard } from './lead-board.js';
import { expandQuery } from './query-expansion.js';
import { nameTerms, queryTerms } from './query-terms.js';
import { FragmentSearch } from '../retrieval/fragment-search.js';
import type { FusedHit } from '../retrieval/rank-fusion.js';
import type { SearchMode } from '../retrieval/search-query.js';
import { shortSnippet } from './snippets.js';
import { readQuery, searchText } from '@kw/platform-query-reading';

interface Step {
  kind: string;
  detail: string;
  terms: string[];
  found: number;
}

/**
 * How much each retrieval weighs in a lead's score. The search's fused score is at most 1 (its
 * best hit near it), and it decides the order: the added words' BM25 (divided by its best) and
 * the graph (divided by the best fragment's sum) add at most 0.2 each, enough to order near
 * ties and to bring in what only they found. Measured through the API (docs/search-listing-and-graph.md):
 * the graph at full weight cost 13 % of nDCG@10 on sentence queries that name many entities.
 */
const WEIGHT = { search: 1, expanded: 0.2, graph: 0.2 };

/** Why the search found a fragment: the query's words it holds, its meaning, or both. */
function reasonOf(hit: FusedHit, held: readonly string[]): string {
  return hit.matchedBy
    .filter((retriever) => retriever !== 'rerank')
    .map((retriever) => (retriever === 'keyword' ? withTerms('keyword match', held) : 'close in meaning to the query'))
    .join(' and ');
}

/** `reason (a, b)`, or the reason alone when no word is named. */
function withTerms(reason: string, terms: readonly string[]): string {
  return terms.length > 0 ? `${reason} (${terms.join(', ')})` : reason;
}

/**
 * Agentic search: a fixed plan of retrievals whose every step is reported, so an AI client
 * sees how the leads were found and can follow up with its own reads.
 *   1. expand: keywords of the query, widened by the configured model if any
 *   2. entities: graph entities the query names (their names widen the keywords)
 *   3. neighbours: entities one hop away along relations
 *   4. keyword: the workspace's search of the query (BM25 and vectors), then BM25 with the
 *      words the model and the graph's names added
 *   5. graph: fragments mentioning the entities and their neighbours
 *   6. merge: de-duplicated leads ranked by the sum of their weighted scores
 */
@Injectable()
export class AgenticSearchHandlers {
  constructor(
    private readonly graph: GraphRepository,
    private readonly leads: AgenticRepository,
    private readonly fragmentSearch: FragmentSearch,
    private readonly gate: WorkspaceGate,
    @Inject(AI_PROVIDER) private readonly ai: AiProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Handles(FragmentListingService.method.agenticSearch)
  async search(input: RequestOf<typeof FragmentListingService, 'agenticSearch'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const maxLeads = Math.min(Math.max(input.maxLeads || AGENTIC_MAX_LEADS_DEFAULT, 1), AGENTIC_MAX_LEADS);
    const steps: Step[] = [];
    const board = new LeadBoard();

    // The query as search reads it (NFC): what it excludes is never a keyword, an entity or a
    // lead; the model and the graph read it without its operators and excluded words.
    const text = searchText(input.query);
    const query = readQuery(text);
    const excludedWords = new Set(queryTerms(query.exclusions.join(' ')));
    // One model budget for the whole run (SEARCH_MODEL_TIMEOUT_MS): the query's embedding gets
    // what the widening left, so a hung model costs it once and the fallback answers well
    // inside SERVICE_TIMEOUT_MS.
    const modelDeadline = Date.now() + this.config.SEARCH_MODEL_TIMEOUT_MS;
    const expansion = await expandQuery(query.modelText, this.ai, this.config.SEARCH_MODEL_TIMEOUT_MS);
    const own = expansion.own;
    const terms = expansion.terms.filter((t) => !excludedWords.has(t));
    steps.push({ kind: 'expand', detail: expansion.detail, terms, found: terms.length });

    const seeds = await this.graph.entitiesNamedIn(workspaceId, query.modelText, AGENTIC_CANDIDATES);
    steps.push({
      kind: 'entities',
      detail: 'graph entities named in the query',
      terms: seeds.map((e) => e.name),
      found: seeds.length,
    });

    const traversal = await traverse(
      this.graph,
      workspaceId,
      seeds.map((e) => e.id),
      1,
      AGENTIC_CANDIDATES,
    );
    const neighbourIds = [...traversal.depths].filter(([, depth]) => depth === 1).map(([id]) => id);
    const names = await this.names(workspaceId, [...seeds.map((e) => e.id), ...neighbourIds], seeds);
    steps.push({
      kind: 'neighbours',
      detail: 'entities related to them (one hop)',
      terms: neighbourIds.map((id) => names.get(id) ?? id),
      found: neighbourIds.length,
    });

    // The query as the workspace's own search reads it (BM25 and vectors, fused), then BM25
    // with the words the model and the graph added, which weigh less: they widen, not decide.
    const added = [
      ...new Set(
        [...terms, ...nameTerms(seeds.map((e) => e.name))].filter((t) => !own.includes(t) && !excludedWords.has(t)),
      ),
    ];
    const [hits, addedHits] = await Promise.all([
      this.ranked(workspaceId, text, 'hybrid', modelDeadline),
      added.length > 0 ? this.ranked(workspaceId, added.join(' '), 'keyword') : [],
    ]);
    // A lead's `why` names the words it holds, not every word of the query.
    const held = await this.leads.termsHeld(
      workspaceId,
      [...new Set([...hits, ...addedHits].map((h) => h.fragmentId))],
      [...own, ...added],
    );
    const heldOf = (id: string, words: readonly string[]) => words.filter((w) => held.get(id)?.has(w));
    for (const hit of hits)
      board.add({ id: hit.fragmentId }, WEIGHT.search * hit.score, reasonOf(hit, heldOf(hit.fragmentId, own)));
    const best = addedHits[0]?.score || 1;
    for (const hit of addedHits)
      board.add(
        { id: hit.fragmentId },
        (WEIGHT.expanded * hit.score) / best,
        withTerms('expanded keyword match', heldOf(hit.fragmentId, added)),
      );
    steps.push({
      kind: 'keyword',
      detail:
        'the workspace search of the query (BM25 over title, tags, summary and content, with vector similarity), then BM25 with the added words',
      terms: [...own, ...added],
      found: board.size,
    });

    const mentions = await this.graph.fragmentsMentioning(
      workspaceId,
      [...traversal.depths.keys()],
      AGENTIC_CANDIDATES,
    );
    // Each mention counts (a seed 1, a neighbour 0.5); a fragment's sum is divided by the best
    // fragment's (at least 1), so the graph adds at most WEIGHT.graph however many entities a
    // query names.
    const found: Array<{ ref: { id: string; title: string }; weight: number; reason: string }> = [];
    for (const [entityId, refs] of mentions) {
      const seed = traversal.depths.get(entityId) === 0;
      for (const ref of refs)
        found.push({
          ref,
          weight: seed ? 1 : 0.5,
          reason: seed
            ? `mentions ${names.get(entityId)}`
            : `mentions ${names.get(entityId)}, related to the query's entities`,
        });
    }
    const sums = new Map<string, number>();
    for (const { ref, weight } of found) sums.set(ref.id, (sums.get(ref.id) ?? 0) + weight);
    let most = 1;
    for (const sum of sums.values()) most = Math.max(most, sum);
    for (const { ref, weight, reason } of found) board.add(ref, (WEIGHT.graph * weight) / most, reason);
    const graphFound = found.length;
    // The search honoured the exclusions; the added words and the graph widen, and must too.
    for (const id of await this.leads.excluded(workspaceId, board.ids(), query.exclusions)) board.remove(id);
    steps.push({
      kind: 'graph',
      detail: 'fragments mentioning the entities and their neighbours',
      terms: [],
      found: graphFound,
    });

    const top = board.top(maxLeads);
    const texts = await this.leads.leadTexts(
      workspaceId,
      top.map((l) => l.fragmentId),
      AGENTIC_SNIPPET_CHARS + 1,
    );
    const leads = top.flatMap((l) => {
      const text = texts.get(l.fragmentId);
      return text ? [{ ...l, title: text.title, snippet: shortSnippet(text.snippet) }] : [];
    });
    steps.push({
      kind: 'merge',
      detail: `de-duplicated ${board.size} candidate(s) into ${leads.length} lead(s)`,
      terms: [],
      found: leads.length,
    });
    return {
      leads,
      steps,
      expandedTerms: [
        ...own,
        ...added,
        ...neighbourIds
          .map((id) => names.get(id) ?? '')
          .filter((name) => name !== '' && !queryTerms(name).some((t) => excludedWords.has(t))),
      ],
    };
  }

  /** The search's candidates for `query` in the workspace, best first, as many as a lead list takes. */
  private async ranked(
    workspaceId: string,
    query: string,
    mode: SearchMode,
    modelDeadline?: number,
  ): Promise<FusedHit[]> {
    const criteria = { query, mode, types: [], tags: [] };
    const hits = await this.fragmentSearch.rank([workspaceId], criteria, undefined, 0, modelDeadline);
    return hits.slice(0, AGENTIC_CANDIDATES);
  }

  /** Names of the entities (seeds known already; neighbours read once). */
  private async names(workspaceId: string, ids: string[], known: EntityRow[]): Promise<Map<string, string>> {
    const names = new Map(known.map((e) => [e.id, e.name]));
    const missing = ids.filter((id) => !names.has(id));
    if (missing.length > 0) {
      for (const e of await this.graph.entitiesByIds(workspaceId, missing)) names.set(e.id, e.name);
    }
    return names;
  }
}
