import { GRAPH_NODES_MAX } from '../../search-limits.js';
import type { EdgeRow, GraphRepository } from '../../persistence/graph.repository.js';

export interface Traversal {
  /** Entity id -> distance from the nearest start entity. */
  depths: Map<string, number>;
  edges: EdgeRow[];
  truncated: boolean;
}

/** Breadth-first from the start entities along live relations, up to `depth` hops and `maxNodes` nodes. */
export async function traverse(
  graph: GraphRepository,
  workspaceId: string,
  start: readonly string[],
  depth: number,
  maxNodes = GRAPH_NODES_MAX,
): Promise<Traversal> {
  const depths = new Map(start.map((id) => [id, 0]));
  const edges = new Map<string, EdgeRow>();
  let frontier = [...start];
  let truncated = false;
  for (let level = 1; level <= depth && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const edge of await graph.edgesAround(workspaceId, frontier)) {
      for (const id of [edge.sourceId, edge.targetId]) {
        if (depths.has(id)) continue;
        if (depths.size >= maxNodes) {
          truncated = true;
          continue;
        }
        depths.set(id, level);
        next.push(id);
      }
      if (depths.has(edge.sourceId) && depths.has(edge.targetId))
        edges.set(`${edge.sourceId}|${edge.targetId}|${edge.kind}`, edge);
    }
    frontier = next;
  }
  return { depths, edges: [...edges.values()], truncated };
}
