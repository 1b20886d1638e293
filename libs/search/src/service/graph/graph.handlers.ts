import { Injectable } from '@nestjs/common';
import { GraphService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { GRAPH_DEPTH_MAX, GRAPH_SEARCH_LIMIT_DEFAULT, GRAPH_SEARCH_LIMIT_MAX } from '../../search-limits.js';
import { GraphRepository, type EntityRow } from '../../persistence/graph.repository.js';
import { traverse, type Traversal } from './graph-traversal.js';
import { isUuid } from '@kw/platform-ids';

const clamp = (value: number, fallback: number, max: number) => Math.min(Math.max(value || fallback, 1), max);

/** The graph routes: statistics, entity search, neighbourhoods and graph-guided retrieval. */
@Injectable()
export class GraphHandlers {
  constructor(
    private readonly graph: GraphRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(GraphService.method.getGraphStats)
  async stats(input: RequestOf<typeof GraphService, 'getGraphStats'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    return this.graph.graphStats(workspaceId);
  }

  @Handles(GraphService.method.searchGraphEntities)
  async search(input: RequestOf<typeof GraphService, 'searchGraphEntities'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const match = input.match === 'substring' ? 'substring' : 'prefix';
    const entities = await this.graph.searchEntities(
      workspaceId,
      input.query,
      match,
      input.kind,
      clamp(input.limit, GRAPH_SEARCH_LIMIT_DEFAULT, GRAPH_SEARCH_LIMIT_MAX),
    );
    return { entities: entities.map((e) => ({ ...e, depth: 0, fragments: [] })) };
  }

  @Handles(GraphService.method.getEntityNeighbourhood)
  async neighbourhood(input: RequestOf<typeof GraphService, 'getEntityNeighbourhood'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const [root] = isUuid(input.entityId) ? await this.graph.entitiesByIds(workspaceId, [input.entityId]) : [];
    if (!root) throw notFound('Entity');
    const traversal = await traverse(this.graph, workspaceId, [root.id], clamp(input.depth, 1, GRAPH_DEPTH_MAX));
    const nodes = await this.nodesOf(workspaceId, traversal);
    return { root: nodes.find((n) => n.id === root.id), nodes, edges: traversal.edges, truncated: traversal.truncated };
  }

  @Handles(GraphService.method.graphRetrieve)
  async retrieve(input: RequestOf<typeof GraphService, 'graphRetrieve'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const limit = clamp(input.limit, GRAPH_SEARCH_LIMIT_DEFAULT, GRAPH_SEARCH_LIMIT_MAX);
    const seeds = await this.graph.entitiesNamedIn(workspaceId, input.query, GRAPH_SEARCH_LIMIT_MAX);
    const traversal = await traverse(
      this.graph,
      workspaceId,
      seeds.map((s) => s.id),
      clamp(input.depth, 1, GRAPH_DEPTH_MAX),
    );
    const nodes = await this.nodesOf(workspaceId, traversal);
    // A fragment scores 1/(1+depth) for each node it mentions: seeds count most.
    const fragments = new Map<string, { id: string; title: string; score: number; entityIds: string[] }>();
    for (const node of nodes) {
      for (const ref of node.fragments) {
        const entry = fragments.get(ref.id) ?? { ...ref, score: 0, entityIds: [] };
        entry.score += 1 / (1 + node.depth);
        entry.entityIds.push(node.id);
        fragments.set(ref.id, entry);
      }
    }
    const ranked = [...fragments.values()]
      .sort((a, b) => b.score - a.score || a.title.localeCompare(b.title) || a.id.localeCompare(b.id))
      .slice(0, limit);
    return {
      seeds: nodes.filter((n) => n.depth === 0),
      nodes,
      edges: traversal.edges,
      fragments: ranked.map((f) => ({ ...f, score: Math.round(f.score * 1000) / 1000 })),
    };
  }

  /** The traversed entities with their depth and the fragments mentioning each, nearest first. */
  private async nodesOf(workspaceId: string, traversal: Traversal) {
    const ids = [...traversal.depths.keys()];
    const entities = await this.graph.entitiesByIds(workspaceId, ids);
    const mentions = await this.graph.fragmentsMentioning(workspaceId, ids);
    return entities
      .map((e: EntityRow) => ({ ...e, depth: traversal.depths.get(e.id)!, fragments: mentions.get(e.id) ?? [] }))
      .sort((a, b) => a.depth - b.depth || b.mentionCount - a.mentionCount || a.name.localeCompare(b.name));
  }
}
