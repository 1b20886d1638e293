// Baseline servers for the benchmark: the same trivial work as the platform's route, with
// nothing of the platform around it. Prints the port it listens on as its first line.
//   node bench/baselines/bare-fastify.mjs version           GET /api/version (static JSON)
//   node bench/baselines/bare-fastify.mjs nats <NATS_URL>   POST /echo: one bare request-reply over NATS
import Fastify from 'fastify';
import { connect } from '@nats-io/transport-node';

const [mode, natsUrl] = process.argv.slice(2);
const app = Fastify({ logger: false });

if (mode === 'version') {
  const body = { version: '0.1.0', commit: 'unknown', builtAt: 'unknown', node: process.version, runMode: 'embedded' };
  app.get('/api/version', async () => body);
} else if (mode === 'nats') {
  const nc = await connect({ servers: natsUrl });
  const subject = `bench.echo.${process.pid}`;
  nc.subscribe(subject, { queue: 'bench', callback: (_err, msg) => msg.respond(msg.data) });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  app.post('/echo', async (request) => {
    const reply = await nc.request(subject, encoder.encode(JSON.stringify(request.body)), { timeout: 5000 });
    return JSON.parse(decoder.decode(reply.data));
  });
} else {
  console.error('usage: bare-fastify.mjs version | nats <url>');
  process.exit(2);
}
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(app.server.address().port);
