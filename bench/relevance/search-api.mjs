// The harness's one way to ask GET /api/search for a ranking (run.mjs, fusion-sweep.mjs).
import { QUERY_CHARS_MAX } from './beir.mjs';

/** The search URL of a test query (cut to what the API takes), without paging. */
export function searchUrl(api, workspaceId, mode, text) {
  return `${api.base}/api/search?workspaceId=${workspaceId}&mode=${mode}&q=${encodeURIComponent(text.slice(0, QUERY_CHARS_MAX))}`;
}

/** One page of results ({fragmentId, score, ...}), best first; a refusal throws. */
export async function searchResults(api, workspaceId, mode, text, { limit, offset = 0 }) {
  const res = await fetch(`${searchUrl(api, workspaceId, mode, text)}&limit=${limit}&offset=${offset}`, {
    headers: api.auth,
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`search (${mode}) answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.results;
}
