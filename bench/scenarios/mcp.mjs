// 6. MCP tools/call search against the REST search route, on one embedded platform in the same
// run. The session is opened once (initialize + initialized); each measured request is one
// tools/call, as an agent's loop sends them.
import { load, quick } from '../lib.mjs';
import { notes } from '../corpus.mjs';

export const TARGET = 0.8;
const FRAGMENTS = quick ? 60 : 200;

export async function mcpVsRest({ embedded }) {
  const { api } = embedded;
  const { workspaceId, typeId } = await api.workspace('bench mcp');
  const gen = notes({ seed: 6 });
  const generated = Array.from({ length: FRAGMENTS }, () => gen.next());
  // A few creates in flight at a time (as clients do); then wait for enrichment so that it
  // does not run during the measurement.
  for (let i = 0; i < generated.length; i += 8)
    await Promise.all(generated.slice(i, i + 8).map((n) => api.createFragment(workspaceId, typeId, n)));
  await api.waitEnriched(workspaceId);

  const mcpHeaders = { ...api.json, accept: 'application/json, text/event-stream' };
  const init = await fetch(`${api.base}/api/mcp`, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  if (!init.ok) throw new Error(`MCP initialize answered ${init.status}: ${await init.text()}`);
  const session = init.headers.get('mcp-session-id');
  await init.text();
  const sessionHeaders = { ...mcpHeaders, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await fetch(`${api.base}/api/mcp`, {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());

  // Two words of the first note's title: a query with hits.
  const q = generated[0].title.split(' ').slice(0, 2).join(' ');
  const restUrl = `${api.base}/api/search?workspaceId=${workspaceId}&q=${encodeURIComponent(q)}&limit=10`;
  const call = {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search', arguments: { workspaceId, query: q, limit: 10 } },
    }),
  };
  // Both answer 200 even with no hits, and MCP reports a tool error in a 200: check once that both really find something.
  const hits = (await api.request('GET', restUrl.slice(api.base.length))).total;
  const answer = await (await fetch(`${api.base}/api/mcp`, call)).text();
  if (!(hits > 0) || /"isError"\s*:\s*true|"error"\s*:/.test(answer))
    throw new Error(`search "${q}": REST total ${hits}; MCP answered ${answer.slice(0, 300)}`);
  const rest = await load(restUrl, { headers: api.auth });
  // A distinct JSON-RPC id per call, as a client sends them: the transport routes each answer by its id.
  let id = 100;
  const mcp = await load(`${api.base}/api/mcp`, {
    requests: [
      {
        method: 'POST',
        path: '/api/mcp',
        headers: sessionHeaders,
        setupRequest: (req) => ({ ...req, body: call.body.replace('"id":1,', `"id":${id++},`) }),
      },
    ],
  });
  return {
    scenario: 'MCP tools/call search vs REST GET /api/search',
    unit: 'req/s',
    platform: mcp,
    baseline: rest,
    ratio: mcp.rps / rest.rps,
    target: TARGET,
    note: `embedded mode, ${FRAGMENTS} generated notes, one MCP session`,
  };
}
