// 3. GET /api/memory-fragments/{id} end to end on the distributed mode (gateway auth and
// rate limit, NATS hop, workspace access check, Prisma read, presentation) against a bare
// Fastify + pg route running the same SELECT on the same row.
import { load, startBaseline, stop } from '../lib.mjs';
import { notes } from '../corpus.mjs';

export const TARGET = 0.5;

export async function fragmentGet({ distributed, memory }) {
  const { api } = distributed;
  const { workspaceId, typeId } = await api.workspace('bench get');
  const fragment = await api.createFragment(workspaceId, typeId, notes({ seed: 3 }).next());
  // Measured once enrichment is done: no background writes to the row during the load.
  await api.waitEnriched(workspaceId);
  const bare = await startBaseline('bench/baselines/bare-fastify.mjs', ['fragment-get', distributed.databaseUrl]);
  try {
    const platform = await load(`${api.base}/api/memory-fragments/${fragment.id}`, { headers: api.auth });
    const baseline = await load(`${bare.base}/fragments/${workspaceId}/${fragment.id}`);
    // The bare process after its load: what a Node.js + Fastify + pg server weighs here.
    memory.sample('bare Fastify + pg (baseline of 3)', bare.child.pid);
    distributed.assertAlive();
    return {
      scenario: 'GET /api/memory-fragments/{id} vs bare Fastify + pg SELECT',
      unit: 'req/s',
      platform,
      baseline,
      ratio: platform.rps / baseline.rps,
      target: TARGET,
      note: `distributed mode, real Postgres; one ${fragment.content.length}-character fragment`,
    };
  } finally {
    await stop(bare.child);
  }
}
