// The harness's one way to ask the API for a ranking (run.mjs, fusion-sweep.mjs): GET /api/search
// in its modes, `agentic`, POST /api/fragments/agentic-search (its leads, at most 50), and
// `files` (hybrid), `files-keyword` and `files-semantic`, GET /api/files/search in that mode over
// the collection uploaded as files (file-corpus.mjs).
import { QUERY_CHARS_MAX } from './beir.mjs';

/** The file search takes at most 500 characters (FILE_SEARCH_QUERY_MAX_CHARS). */
const FILE_QUERY_CHARS_MAX = 500;

/** Agentic search answers at most this many leads: recall@100 of that mode counts 50. */
export const AGENTIC_LEADS_MAX = 50;

/** The search URL of a test query (cut to what the API takes), without paging. */
export function searchUrl(api, workspaceId, mode, text) {
  return `${api.base}/api/search?workspaceId=${workspaceId}&mode=${mode}&q=${encodeURIComponent(text.slice(0, QUERY_CHARS_MAX))}`;
}

/** Agentic search's leads as results ({fragmentId, score}); `limit` undefined: its default count. */
async function agenticResults(api, workspaceId, text, limit) {
  const res = await fetch(`${api.base}/api/fragments/agentic-search`, {
    method: 'POST',
    headers: { ...api.auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      workspaceId,
      query: text.slice(0, QUERY_CHARS_MAX),
      ...(limit ? { maxLeads: Math.min(limit, AGENTIC_LEADS_MAX) } : {}),
    }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`agentic search answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.leads;
}

/** Whether a harness mode is one of the files search's. */
export const isFilesMode = (mode) => mode === 'files' || mode.startsWith('files-');

function fileSearchUrl(api, workspaceId, mode, text) {
  const fileMode = mode === 'files' ? 'hybrid' : mode.slice('files-'.length);
  return `${api.base}/api/files/search?workspaceId=${workspaceId}&mode=${fileMode}&q=${encodeURIComponent(text.slice(0, FILE_QUERY_CHARS_MAX))}`;
}

/** The file search's hits as results ({fileId, score}). */
async function fileResults(api, workspaceId, mode, text, limit, offset) {
  const res = await fetch(`${fileSearchUrl(api, workspaceId, mode, text)}&limit=${limit}&offset=${offset}`, {
    headers: api.auth,
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`file search answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.items.map((item) => ({ fileId: item.file.id, score: item.score, matched: item.matched }));
}

/** What a client asks for one default page of a mode (timed by the harness). */
export async function defaultPage(api, workspaceId, mode, text) {
  if (mode === 'agentic') return agenticResults(api, workspaceId, text);
  if (isFilesMode(mode))
    return (await fetch(fileSearchUrl(api, workspaceId, mode, text), { headers: api.auth })).arrayBuffer();
  const page = await fetch(searchUrl(api, workspaceId, mode, text), { headers: api.auth });
  return page.arrayBuffer();
}

/** One page of results ({fragmentId, score, ...}, or {fileId, ...} for `files`), best first; a refusal throws. */
export async function searchResults(api, workspaceId, mode, text, { limit, offset = 0 }) {
  if (mode === 'agentic') return offset === 0 ? agenticResults(api, workspaceId, text, limit) : [];
  if (isFilesMode(mode)) return fileResults(api, workspaceId, mode, text, limit, offset);
  const res = await fetch(`${searchUrl(api, workspaceId, mode, text)}&limit=${limit}&offset=${offset}`, {
    headers: api.auth,
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`search (${mode}) answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.results;
}
