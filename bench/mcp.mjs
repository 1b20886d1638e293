// MCP tools/call search vs the REST search route, on one embedded platform in the same run.
// The session is opened once (initialize + initialized); each measured request is one
// tools/call, as an agent's loop sends them.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghij';
const NOTES = [
  'Restarting the billing queue: drain the consumer, then restart it and watch the dead letters.',
  'Postgres vacuum settings for the events table, and why autovacuum fell behind in March.',
  'Onboarding checklist for new engineers: accounts, laptops, the first on-call shadow week.',
  'Incident review: the search cluster ran out of disk because snapshots were never pruned.',
  'How the release train works: cut on Tuesday, staging on Wednesday, production on Thursday.',
];

export async function mcpVsRest({ root, port, load, report, waitFor, stop, unlimited }) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kw-bench-mcp-'));
  const platform = spawn(process.execPath, ['dist/apps/gateway/src/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ADMIN_EMAIL: 'bench@example.test', ADMIN_PASSWORD: 'bench-password-123', ADMIN_TOKEN, ...unlimited },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const json = { ...auth, 'content-type': 'application/json' };
  try {
    await waitFor(`${base}/api/version`);
    const post = async (p, body) => (await fetch(`${base}${p}`, { method: 'POST', headers: json, body: JSON.stringify(body) })).json();
    const { workspace } = await post('/api/workspaces', { name: 'bench mcp' });
    const types = await (await fetch(`${base}/api/workspaces/${workspace.id}/fragment-types`, { headers: auth })).json();
    const note = types.items.find((t) => t.key === 'note');
    for (let i = 0; i < 200; i++) await post('/api/memory-fragments', { workspaceId: workspace.id, fragmentTypeId: note.id, title: `Note ${i}`, content: NOTES[i % NOTES.length] });

    const mcpHeaders = { ...json, accept: 'application/json, text/event-stream' };
    const init = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id');
    await init.text();
    const sessionHeaders = { ...mcpHeaders, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await fetch(`${base}/api/mcp`, { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });

    const q = 'billing queue consumer';
    const rest = await load(`${base}/api/search?workspaceId=${workspace.id}&q=${encodeURIComponent(q)}&limit=10`, { headers: auth });
    const mcp = await load(`${base}/api/mcp`, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { workspaceId: workspace.id, query: q, limit: 10 } } }),
    });
    report('MCP tools/call search vs REST GET /api/search', mcp, rest, 'embedded mode, 200 fragments, one MCP session');
  } finally {
    await stop(platform);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
