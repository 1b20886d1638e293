// 1. A gateway route against a bare Fastify route doing the same trivial work: the cost of
// the edge (request id, access log, metrics, rate limit, error mapping) on the embedded mode.
import { load, startBaseline, stop } from '../lib.mjs';

// Issue 10's goal: the gateway at least 0.9x a bare Fastify route.
export const TARGET = 0.9;

export async function gatewayRoute({ embedded }) {
  const bare = await startBaseline('bench/baselines/bare-fastify.mjs', ['version']);
  try {
    const platform = await load(`${embedded.api.base}/api/version`);
    const baseline = await load(`${bare.base}/api/version`);
    return {
      scenario: 'gateway route vs bare Fastify (GET /api/version)',
      unit: 'req/s',
      platform,
      baseline,
      ratio: platform.rps / baseline.rps,
      target: TARGET,
      note: 'embedded mode; request id, access log, metrics, rate limit and error mapping included',
    };
  } finally {
    await stop(bare.child);
  }
}
