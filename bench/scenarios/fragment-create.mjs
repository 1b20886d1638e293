// 4. Fragment creates accepted per second (POST /api/memory-fragments, a distinct generated
// note per request) on the distributed mode, against a bare Fastify + pg route doing the one
// INSERT of the same row; then enrichment (built-in provider) drained per second: from the
// first create until every fragment is `published`, polled in data.fragments.
import pg from 'pg';
import { CONNECTIONS, load, quick, sleep, startBaseline, stop } from '../lib.mjs';
import { notes } from '../corpus.mjs';

export const TARGET = 0.5;
/** Enrichment keeps up when it drains as fast as creates arrive. */
export const DRAIN_TARGET = 1;
/** Creates sent at most (each a distinct note), and the time they may take at most. */
export const COUNT = Number(process.env.BENCH_CREATES ?? (quick ? 500 : 10_000));
const MAX_SECONDS = Number(process.env.BENCH_CREATE_SECONDS ?? (quick ? 10 : 60));

/** autocannon options sending `bodies` in turn, each once (connections prebuild one request each). */
function sequence(path, headers, bodies, amount) {
  let next = 0;
  return {
    amount,
    requests: [
      { method: 'POST', path, headers, setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) },
    ],
  };
}

export async function fragmentCreate({ distributed }) {
  const { api } = distributed;
  const { workspaceId, typeId } = await api.workspace('bench create');
  const gen = notes({ seed: 4 });
  const generated = Array.from({ length: COUNT + 2 * CONNECTIONS }, () => gen.next());
  const db = new pg.Client({ connectionString: distributed.databaseUrl });
  await db.connect();
  const counts = async () =>
    (
      await db.query(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'published')::int AS published FROM data.fragments WHERE workspace_id = $1`,
        [workspaceId],
      )
    ).rows[0];
  let bare;
  try {
    const started = performance.now();
    const platform = await load(api.base, {
      ...sequence(
        '/api/memory-fragments',
        api.json,
        generated.map((n) =>
          JSON.stringify({ workspaceId, fragmentTypeId: typeId, title: n.title, content: n.content }),
        ),
        COUNT,
      ),
      maxSeconds: MAX_SECONDS,
    });
    const createdAt = performance.now();
    // Creates in flight when the time cap stopped the load still land: wait until the count settles.
    let { total: created, published: atEnd } = await counts();
    for (let settled = 0; settled < 4;) {
      await sleep(250);
      const now = await counts();
      settled = now.total === created ? settled + 1 : 0;
      created = now.total;
    }
    const drainTimeoutMs = Math.max(120_000, created * 60);
    let done = atEnd;
    while (done < created) {
      distributed.assertAlive();
      if (performance.now() - createdAt > drainTimeoutMs)
        throw new Error(
          `enrichment: ${done} of ${created} fragments published ${Math.round(drainTimeoutMs / 1000)} s after the creates`,
        );
      await sleep(250);
      done = (await counts()).published;
    }
    const drainedAt = performance.now();
    const drain = {
      fragments: created,
      fragmentsPerSecond: +((created * 1000) / (drainedAt - started)).toFixed(1),
      seconds: +((drainedAt - started) / 1000).toFixed(1),
      publishedWhenCreatesEnded: atEnd,
      tailSeconds: +((drainedAt - createdAt) / 1000).toFixed(1),
    };

    // The baseline inserts the same rows into the same table (after the drain: it competes with nothing).
    const userId = (
      await db.query(`SELECT created_by::text AS id FROM data.fragments WHERE workspace_id = $1 LIMIT 1`, [workspaceId])
    ).rows[0].id;
    bare = await startBaseline('bench/baselines/bare-fastify.mjs', ['fragment-create', distributed.databaseUrl]);
    const baseline = await load(
      bare.base,
      sequence(
        '/fragments',
        { 'content-type': 'application/json' },
        generated.map((n) =>
          JSON.stringify({ workspaceId, fragmentTypeId: typeId, userId, title: n.title, content: n.content }),
        ),
        platform.requests,
      ),
    );
    distributed.assertAlive();
    const createRate = platform.rps;
    return [
      {
        scenario: 'POST /api/memory-fragments vs bare Fastify + pg INSERT',
        unit: 'creates/s',
        platform,
        baseline,
        ratio: platform.rps / baseline.rps,
        target: TARGET,
        note: `issue 10's goal: >= 1,000 creates/s; distributed mode; ${platform.requests} distinct generated notes (at most ${COUNT} or ${MAX_SECONDS} s), each sent once; the baseline sends the same ones`,
      },
      {
        scenario: 'enrichment drained (built-in provider) vs create rate',
        unit: 'fragments/s',
        platform: { rps: drain.fragmentsPerSecond, ...drain },
        baseline: { rps: createRate },
        ratio: drain.fragmentsPerSecond / createRate,
        target: DRAIN_TARGET,
        note: `issue 10's goal: >= 500 enrichments/s; ${created} fragments from the first create until all published (${drain.seconds} s; ${drain.publishedWhenCreatesEnded} published when the creates ended, the rest ${drain.tailSeconds} s later)`,
      },
    ];
  } finally {
    await db.end().catch(() => undefined);
    if (bare) await stop(bare.child);
  }
}
