import { Inject, Injectable } from '@nestjs/common';
import { FragmentListingService } from '@kw/contracts';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
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
import { nameTerms } from './query-terms.js';
import { shortSnippet } from './snippets.js';

interface Step {
  kind: string;
  detail: string;
  terms: string[];
  found: number;
}

/** How much each retrieval weighs in a lead's score. */
const WEIGHT = { keyword: 1, expanded: 0.4, seed: 1, neighbour: 0.5 };

/**
 * Agentic search: a fixed plan of retrievals whose every step is reported, so an AI client
 * sees how the leads were found and can follow up with its own reads.
 *   1. expand: keywords of the query, widened by the configured model if any
 *   2. entities: graph entities the query names (their names widen the keywords)
 *   3. neighbours: entities one hop away along relations
 *   4. keyword: full-text with the query's keywords, then with the graph's names
 *   5. graph: fragments mentioning the entities and their neighbours
 *   6. merge: de-duplicated leads ranked by the sum of their weighted scores
 */
@Injectable()
export class AgenticSearchHandlers {
  constructor(
    private readonly graph: GraphRepository,
    private readonly leads: AgenticRepository,
    private readonly gate: WorkspaceGate,
    @Inject(AI_PROVIDER) private readonly ai: AiProvider,
  ) {}

  @Handles(FragmentListingService.method.agenticSearch)
  async search(input: RequestOf<typeof FragmentListingService, 'agenticSearch'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const maxLeads = Math.min(Math.max(input.maxLeads || AGENTIC_MAX_LEADS_DEFAULT, 1), AGENTIC_MAX_LEADS);
    const steps: Step[] = [];
    const board = new LeadBoard();

    const { terms, detail } = await expandQuery(input.query, this.ai);
    steps.push({ kind: 'expand', detail, terms, found: terms.length });

    const seeds = await this.graph.entitiesNamedIn(workspaceId, input.query, AGENTIC_CANDIDATES);
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

    for (const hit of await this.leads.keywordHits(workspaceId, terms))
      board.add(hit, WEIGHT.keyword * hit.rank, `keyword match (${terms.join(', ')})`);
    const expanded = nameTerms(seeds.map((e) => e.name)).filter((t) => !terms.includes(t));
    const expandedHits = await this.leads.keywordHits(workspaceId, expanded);
    for (const hit of expandedHits)
      board.add(hit, WEIGHT.expanded * hit.rank, `expanded keyword match (${expanded.join(', ')})`);
    steps.push({
      kind: 'keyword',
      detail: 'full-text over title, summary and content',
      terms: [...terms, ...expanded],
      found: board.size,
    });

    const mentions = await this.graph.fragmentsMentioning(
      workspaceId,
      [...traversal.depths.keys()],
      AGENTIC_CANDIDATES,
    );
    let graphFound = 0;
    for (const [entityId, refs] of mentions) {
      const seed = traversal.depths.get(entityId) === 0;
      for (const ref of refs) {
        graphFound++;
        board.add(
          ref,
          seed ? WEIGHT.seed : WEIGHT.neighbour,
          seed ? `mentions ${names.get(entityId)}` : `mentions ${names.get(entityId)}, related to the query's entities`,
        );
      }
    }
    steps.push({
      kind: 'graph',
      detail: 'fragments mentioning the entities and their neighbours',
      terms: [],
      found: graphFound,
    });

    const top = board.top(maxLeads);
    const snippets = new Map(
      [
        ...(await this.leads.snippets(
          workspaceId,
          top.map((l) => l.fragmentId),
          AGENTIC_SNIPPET_CHARS + 1,
        )),
      ].map(([id, text]) => [id, shortSnippet(text)]),
    );
    const leads = top
      .filter((l) => snippets.has(l.fragmentId))
      .map((l) => ({ ...l, snippet: snippets.get(l.fragmentId)! }));
    steps.push({
      kind: 'merge',
      detail: `de-duplicated ${board.size} candidate(s) into ${leads.length} lead(s)`,
      terms: [],
      found: leads.length,
    });
    return {
      leads,
      steps,
      expandedTerms: [...terms, ...expanded, ...neighbourIds.map((id) => names.get(id) ?? '').filter(Boolean)],
    };
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
