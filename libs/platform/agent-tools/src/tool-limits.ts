// Limits only the agent tools have. The fields they share with REST (title, content, tags, key...,
// and the pages: limit, offset, depth) read @kw/contracts, whose limits the services also enforce.
/**
 * list_fragments answers at most this many fragments a call, where its route takes 500: each
 * carries a preview, and a model's context is not a download (read_workspace_file's 20 chunks too).
 */
export const LIST_LIMIT_MAX = 100;
export const IDS_MAX = 100;
/** Listings answer this much content per fragment; get_fragment answers all of it. */
export const PREVIEW_CHARS = 280;
