/** Limits of the graph routes. */
export const GRAPH_DEPTH_MAX = 3;
/** A traversal stops adding nodes past this many (the answer says `truncated`). */
export const GRAPH_NODES_MAX = 200;
export const GRAPH_FRAGMENTS_PER_NODE = 10;
export const GRAPH_SEARCH_LIMIT_DEFAULT = 20;
export const GRAPH_SEARCH_LIMIT_MAX = 100;
export const GRAPH_QUERY_MAX = 500;
