// 11. Concurrent clients on one platform: 32 clients over keep-alive connections, each sending
// the next request as soon as the last is answered, a fixed mix: 60 % GET a fragment by id,
// 20 % create a fragment, 20 % search (hybrid; half short keyword queries, half sentence-long
// questions). Run on the embedded default (one process and its PostgreSQL server) and on the distributed mode
// (one process per app over NATS, real Postgres) of the same machine, on the same seeded data.
// Reported: throughput of the embedded default against the distributed mode (issue 22: at least
// 0.5x), and GET-by-id median under that load against its idle median (at most 5x).
import http from 'node:http';
import { DURATION, percentiles, quick } from '../lib.mjs';
import { notes, queries, rng, sentenceQueries } from '../corpus.mjs';

export const CLIENTS = 32;
export const THROUGHPUT_TARGET = 0.5;
/** idle median / loaded median: at most 5x slower under load. */
export const GET_TARGET = 0.2;
const SEED_NOTES = quick ? 200 : 1000;
const IDLE_GETS = quick ? 100 : 300;
const MIX = [
  ['get', 0.6],
  ['create', 0.2],
  ['search', 0.2],
];

/** Loads the seed notes (8 creates in flight) and waits for their enrichment. */
export async function seedMixedLoad(platform) {
  const { api } = platform;
  const { workspaceId, typeId } = await api.workspace('bench mixed load');
  const gen = notes({ seed: 11 });
  const ids = [];
  for (let i = 0; i < SEED_NOTES; i += 8) {
    const batch = Array.from({ length: Math.min(8, SEED_NOTES - i) }, () => gen.next());
    ids.push(...(await Promise.all(batch.map((n) => api.createFragment(workspaceId, typeId, n)))).map((f) => f.id));
  }
  await api.waitEnriched(workspaceId, 300_000);
  return { workspaceId, typeId, ids };
}

/** One request over the keep-alive agent; resolves with the status, rejects on a socket error. */
function send(agent, base, { method, path, headers, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs the mix on `platform` (seeded by seedMixedLoad): the idle GET median first (sequential),
 * then CLIENTS clients for DURATION seconds. Any non-2xx answer or socket error fails the run.
 */
export async function runMixedLoad(platform, seed) {
  const { api } = platform;
  const { workspaceId, typeId, ids } = seed;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const random = rng(7);
  const gen = notes({ seed: 12 });
  const searches = [...queries(50, { seed: 3 }), ...sentenceQueries(50)];
  const requestFor = {
    get: () => ({
      method: 'GET',
      path: `/api/memory-fragments/${ids[Math.floor(random() * ids.length)]}`,
      headers: api.auth,
    }),
    create: () => {
      const n = gen.next();
      return {
        method: 'POST',
        path: '/api/memory-fragments',
        headers: api.json,
        body: JSON.stringify({ workspaceId, fragmentTypeId: typeId, title: n.title, content: n.content }),
      };
    },
    search: () => ({
      method: 'GET',
      path: `/api/search?workspaceId=${workspaceId}&q=${encodeURIComponent(searches[Math.floor(random() * searches.length)])}`,
      headers: api.auth,
    }),
  };
  const pick = () => {
    let r = random();
    for (const [kind, share] of MIX) if ((r -= share) < 0) return kind;
    return MIX[0][0];
  };
  const check = (kind, res) => {
    if (res.status < 200 || res.status > 299)
      throw new Error(`${kind} answered ${res.status}: ${res.body.slice(0, 300)}`);
  };
  try {
    const idle = [];
    for (let i = 0; i < IDLE_GETS; i++) {
      const started = performance.now();
      check('idle get', await send(agent, api.base, requestFor.get()));
      idle.push(performance.now() - started);
    }
    const samples = { get: [], create: [], search: [] };
    const all = [];
    const deadline = performance.now() + DURATION * 1000;
    const started = performance.now();
    const client = async () => {
      while (performance.now() < deadline) {
        const kind = pick();
        const t = performance.now();
        check(kind, await send(agent, api.base, requestFor[kind]()));
        const ms = performance.now() - t;
        samples[kind].push(ms);
        all.push(ms);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const seconds = (performance.now() - started) / 1000;
    return {
      rps: Math.round(all.length / seconds),
      seconds: +seconds.toFixed(2),
      requests: all.length,
      all: percentiles(all),
      idleGet: percentiles(idle),
      get: percentiles(samples.get),
      create: percentiles(samples.create),
      search: percentiles(samples.search),
    };
  } finally {
    agent.destroy();
  }
}

/** The two rows of scenario 11 from the embedded and (when run) the distributed measurement. */
export function mixedLoadRows(embedded, distributed) {
  const describe = (m) =>
    `GET p50 ${m.get.p50} ms (idle ${m.idleGet.p50}), create p50 ${m.create.p50} ms, search p50 ${m.search.p50} ms, p99 of all ${m.all.p99} ms`;
  const rows = [];
  if (distributed)
    rows.push({
      scenario: `${CLIENTS} clients, 60 % GET / 20 % create / 20 % search: embedded default vs distributed`,
      unit: 'req/s',
      platform: { rps: embedded.rps, p50: embedded.all.p50, p99: embedded.all.p99 },
      baseline: { rps: distributed.rps, p50: distributed.all.p50, p99: distributed.all.p99 },
      ratio: embedded.rps / distributed.rps,
      target: THROUGHPUT_TARGET,
      note: `embedded: ${describe(embedded)}; distributed: ${describe(distributed)}; ${SEED_NOTES} seeded notes`,
      mixed: { embedded, distributed },
    });
  rows.push({
    scenario: `embedded default: GET by id median, idle vs under ${CLIENTS} clients`,
    unit: 'ms p95',
    platform: { p50: embedded.get.p50, p95: embedded.get.p95, p99: embedded.get.p99 },
    baseline: { p50: embedded.idleGet.p50, p95: embedded.idleGet.p95, p99: embedded.idleGet.p99 },
    ratio: embedded.idleGet.p50 / embedded.get.p50,
    target: GET_TARGET,
    note: `platform = under load, baseline = idle (sequential); ratio = idle median / loaded median (at most 5x slower: 0.2); ${describe(embedded)}, ${embedded.rps} req/s`,
  });
  return rows;
}
