// 2. Gateway -> NATS -> service and back with no database work, against a bare Fastify route
// doing one @nats-io request-reply: the cost of the platform's transport (protobuf, headers,
// context propagation) on the distributed mode.
import { load, startBaseline, stop } from '../lib.mjs';

// Issue 10's goal: a hop through the platform adds at most 2x a bare round trip.
export const TARGET = 0.5;

export async function natsHop({ distributed }) {
  const bare = await startBaseline('bench/baselines/bare-fastify.mjs', ['nats', process.env.NATS_URL]);
  try {
    const options = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ component: 'fragments', text: 'bench' }),
    };
    const platform = await load(`${distributed.api.base}/api/diagnostics/echo`, options);
    const baseline = await load(`${bare.base}/echo`, options);
    return {
      scenario: 'gateway -> NATS -> service vs bare Fastify + NATS request-reply',
      unit: 'req/s',
      platform,
      baseline,
      ratio: platform.rps / baseline.rps,
      target: TARGET,
      note: 'distributed mode (POST /api/diagnostics/echo to fragments), no database work',
    };
  } finally {
    await stop(bare.child);
  }
}
