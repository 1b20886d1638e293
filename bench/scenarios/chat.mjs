// 9. The latency the platform adds to a chat completion and to the first streamed token: the
// same requests to the platform's /api/v1/chat/completions and straight to the provider stand-in
// it relays to (bench/baselines/model-stand-in.mjs), at 1 and 32 concurrent clients.
// Issue 19's goal: at most 0.5 ms added at the median.
import http from 'node:http';
import { percentiles, quick, startBaseline } from '../lib.mjs';

export const ADDED_MS_GOAL = 0.5;
/** Ours (no issue sets one): a turn admits a key and a user and builds the agent's prompt first. */
export const EMBED_ADDED_MS_GOAL = 10;

/** The provider stand-in, started before the platform that is configured with it. */
export async function startModelStandIn() {
  const standIn = await startBaseline('bench/baselines/model-stand-in.mjs', ['serve']);
  const providers = { providers: [{ id: 'bench', kind: 'openai', baseUrl: `${standIn.base}/v1`, retries: 0 }] };
  return { ...standIn, env: { CHAT_PROVIDERS: JSON.stringify(providers) } };
}

/**
 * `count` POSTs from `clients` concurrent loops over keep-alive connections; per request the
 * time to the whole answer and to the first bytes holding "Hello" (the first token).
 */
async function measure(url, headers, body, { clients, count }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const payload = Buffer.from(JSON.stringify(body));
  const total = [];
  const first = [];
  const one = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      let seen = false;
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers },
        },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
          res.on('data', (d) => {
            if (!seen && d.includes('Hello')) {
              seen = true;
              first.push(performance.now() - started);
            }
          });
          res.on('end', () => {
            total.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  const perClient = Math.ceil(count / clients);
  // Warm-up: connections, the platform's caches (token, model catalog, "no own key").
  await Promise.all(Array.from({ length: clients }, one));
  total.length = 0;
  first.length = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < perClient; i++) await one();
    }),
  );
  agent.destroy();
  return { total: percentiles(total), first: percentiles(first) };
}

/**
 * The stand-in (`direct`) and the platform, each `[url, headers, body]`, measured in two
 * interleaved halves each, so a load change on the shared machine hits both sides alike; the
 * averaged percentiles of `pick` (the whole answer, or the first token) and the ms the platform
 * adds at the median.
 */
async function interleaved(direct, platform, { clients, count }, pick) {
  const half = { clients, count: count / 2 };
  const a1 = await measure(...direct, half);
  const p1 = await measure(...platform, half);
  const a2 = await measure(...direct, half);
  const p2 = await measure(...platform, half);
  const avg = (x, y) => ({ p50: (x.p50 + y.p50) / 2, p95: (x.p95 + y.p95) / 2, p99: (x.p99 + y.p99) / 2 });
  const base = avg(pick(a1), pick(a2));
  const plat = avg(pick(p1), pick(p2));
  return { base, plat, added: plat.p50 - base.p50 };
}

const SAY_HELLO = [{ role: 'user', content: 'Say hello' }];

export async function chatScenario({ embedded, standIn }) {
  const rows = [];
  const direct = `${standIn.base}/v1/chat/completions`;
  const platform = `${embedded.api.base}/api/v1/chat/completions`;
  for (const clients of [1, 32]) {
    const count = (quick ? 300 : 2000) * (clients === 1 ? 1 : 4);
    for (const stream of [false, true]) {
      const body = { model: 'bench-model', messages: SAY_HELLO, ...(stream ? { stream: true } : {}) };
      const measured = await interleaved(
        [direct, {}, body],
        [platform, embedded.api.auth, body],
        { clients, count },
        (m) => (stream ? m.first : m.total),
      );
      rows.push(
        addedRow(
          `chat ${stream ? 'time to first token' : 'completion'}, ${clients} client${clients > 1 ? 's' : ''}: platform vs the provider directly`,
          measured,
          ADDED_MS_GOAL,
          { goal: 'goal', what: 'embedded mode, PAT auth, usage recorded' },
        ),
      );
    }
  }
  return rows;
}

/** A public key of a new configuration of the workspace (the bench account's PAT as its scoped token): the chat URL. */
async function embedChatUrl(api, workspaceId, name, stateless) {
  const { config } = await api.request('POST', '/api/v2/configs', {
    workspaceId,
    name,
    model: 'bench-model',
    ...(stateless ? { stateless: true } : {}),
  });
  const { token } = await api.request('POST', `/api/v2/configs/${config.id}/keys`, {
    label: 'bench',
    public: true,
    scopedToken: api.token,
  });
  return `${api.base}/api/v2/embed/chat?key=${encodeURIComponent(token)}`;
}

/** A row of the time the platform adds (to a chat call or an embed turn), against the stand-in alone. */
function addedRow(scenario, { base, plat, added }, goalMs, note) {
  return {
    scenario,
    unit: 'ms p95',
    platform: plat,
    baseline: base,
    // Higher is better, like every ratio of the suite: 1x means nothing added.
    ratio: base.p50 / plat.p50,
    target: +(base.p50 / (base.p50 + goalMs)).toFixed(3),
    addedMs: +added.toFixed(3),
    note: `added ${added.toFixed(2)} ms at the median (${note.goal} ≤ ${goalMs} ms); ${note.what}`,
  };
}

/**
 * 10. The embed chat's turn: `POST /api/v2/embed/chat` (a public key whose scoped token is the
 * bench account's PAT, a stateless configuration, so nothing is stored; the agent offers its
 * default tools and the model answers without calling one) against the same streamed request
 * straight to the stand-in; time to the first token, 1 and 8 clients. What the platform adds:
 * admitting the key and the user (key lookup, the scoped token, the configuration's experts and
 * workspace), the agent's instructions and tool schemas, the event stream, the usage record.
 * Then a configuration that stores conversations, 8 clients, to the end of the stream (10c).
 */
export async function embedChatScenario({ embedded, standIn }) {
  const api = embedded.api;
  const { workspaceId } = await api.workspace('bench embed');
  const rows = [];
  const direct = [
    `${standIn.base}/v1/chat/completions`,
    {},
    { model: 'bench-model', messages: SAY_HELLO, stream: true },
  ];
  const stateless = await embedChatUrl(api, workspaceId, 'bench', true);
  for (const clients of [1, 8]) {
    const count = (quick ? 200 : 1000) * (clients === 1 ? 1 : 2);
    const measured = await interleaved(
      direct,
      [stateless, {}, { messages: SAY_HELLO }],
      { clients, count },
      (m) => m.first,
    );
    rows.push(
      addedRow(
        `embed chat time to first token, ${clients} client${clients > 1 ? 's' : ''}: platform vs the provider directly`,
        measured,
        EMBED_ADDED_MS_GOAL,
        { goal: 'our goal', what: 'public key + scoped token, stateless, default tools offered' },
      ),
    );
  }
  // A configuration that stores its conversations: every turn a new one (its row and the
  // turn's two messages written before the stream ends), so the whole stream is timed.
  const storing = await embedChatUrl(api, workspaceId, 'bench stored', false);
  const measured = await interleaved(
    direct,
    [storing, {}, { messages: SAY_HELLO }],
    { clients: 8, count: (quick ? 200 : 1000) * 2 },
    (m) => m.total,
  );
  rows.push(
    addedRow(
      'embed chat whole turn, stored conversations, 8 clients: platform vs the provider directly',
      measured,
      EMBED_ADDED_MS_GOAL,
      { goal: 'our goal', what: 'a new conversation each turn, stored with its two messages before the stream ends' },
    ),
  );
  return rows;
}
