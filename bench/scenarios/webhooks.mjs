// 14. Webhook deliveries: fragments created through the bulk route, each announced to one
// endpoint (an HTTPS receiver in this process, certificate of the test CA that the platform is
// told to trust), from the create's answer until every delivery arrived; against the bench
// itself posting the same number of JSON bodies of the same size to the same receiver.
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:https';
import path from 'node:path';
import { percentiles, quick, root, throughputRow, waitFor } from '../lib.mjs';
import { notes } from '../corpus.mjs';

export const TARGET = 0.5;
const FRAGMENTS = quick ? 300 : 1000;
const BULK = 500;
/** Requests the baseline keeps in flight (the platform's own concurrency is its business). */
const BASELINE_CONCURRENCY = 8;
const TLS = path.join(root, 'test/fixtures/tls');

/** What the embedded platform needs to deliver to a receiver on 127.0.0.1 with the test CA. */
export const WEBHOOK_ENV = {
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOKS_CA_FILE: path.join(TLS, 'ca.pem'),
};

export async function webhookDeliveries({ embedded }) {
  const { api } = embedded;
  const receiver = await startReceiver();
  try {
    const { workspaceId, typeId } = await api.workspace('bench webhooks');
    await api.request('POST', `/api/workspaces/${workspaceId}/webhooks`, {
      name: 'bench receiver',
      url: receiver.url('/hooks'),
      events: ['fragment.created'],
    });
    const gen = notes({ seed: 14 });
    const items = Array.from({ length: FRAGMENTS }, () => gen.next());

    // Platform: the creates, then every delivery (signed, recorded, retried on failure).
    const started = performance.now();
    let answered = 0;
    for (let i = 0; i < items.length; i += BULK) {
      const answer = await api.request('POST', '/api/memory-fragments/bulk', {
        workspaceId,
        items: items.slice(i, i + BULK).map((n) => ({ fragmentTypeId: typeId, title: n.title, content: n.content })),
      });
      answered += answer.created;
    }
    if (answered !== FRAGMENTS) throw new Error(`bulk created ${answered} of ${FRAGMENTS}`);
    const createdAt = performance.now();
    await waitFor('webhook deliveries', async () => receiver.count('/hooks') >= FRAGMENTS, {
      timeoutMs: 300_000,
      intervalMs: 20,
    });
    const platformSeconds = (performance.now() - started) / 1000;
    const arrivals = receiver.times('/hooks');
    const afterCreate = arrivals.map((t) => t - createdAt);
    // The creates alone bound the rate above; the span of the arrivals shows the delivery side.
    const spanSeconds = (Math.max(...arrivals) - Math.min(...arrivals)) / 1000;
    const createSeconds = (createdAt - started) / 1000;
    const bodyBytes = Math.round(receiver.bytes('/hooks') / FRAGMENTS);
    await api.waitEnriched(workspaceId, 600_000);

    // Baseline: the same number of bodies of that size, posted straight to the receiver.
    const body = JSON.stringify({
      type: 'fragment.created',
      data: { padding: 'x'.repeat(Math.max(0, bodyBytes - 60)) },
    });
    const agent = new Agent({ keepAlive: true, ca: readFileSync(WEBHOOK_ENV.WEBHOOKS_CA_FILE) });
    const baselineStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: BASELINE_CONCURRENCY }, async () => {
        while (next < FRAGMENTS) {
          next += 1;
          await post(agent, receiver.url('/direct'), body);
        }
      }),
    );
    const baselineSeconds = (performance.now() - baselineStarted) / 1000;
    agent.destroy();
    if (receiver.count('/direct') !== FRAGMENTS) throw new Error(`baseline delivered ${receiver.count('/direct')}`);

    const rate = (seconds) => +(FRAGMENTS / seconds).toFixed(1);
    const wait = percentiles(afterCreate);
    return [
      throughputRow({
        scenario: 'webhook deliveries (bulk creates until every delivery arrived) vs posting the same bodies directly',
        unit: 'deliveries/s',
        count: FRAGMENTS,
        platformSeconds,
        baselineSeconds,
        target: TARGET,
        note: `embedded mode; ${FRAGMENTS} fragments in bulk requests of ${BULK}, one endpoint (fragment.created), HTTPS on 127.0.0.1, ${bodyBytes}-byte bodies; creates answered in ${createSeconds.toFixed(2)} s; arrival after the last create's answer p50/p99 ${wait.p50.toFixed(0)}/${wait.p99.toFixed(0)} ms; first to last arrival ${spanSeconds.toFixed(2)} s (${rate(spanSeconds)}/s); baseline ${BASELINE_CONCURRENCY} requests in flight over keep-alive`,
      }),
    ];
  } finally {
    await receiver.close();
  }
}

function post(agent, url, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 204 ? resolve() : reject(new Error(`receiver answered ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An HTTPS receiver answering 204, counting arrivals (with their time and size) per path. */
async function startReceiver() {
  const arrivals = new Map();
  const server = createServer(
    { key: readFileSync(path.join(TLS, 'server-key.pem')), cert: readFileSync(path.join(TLS, 'server.pem')) },
    (req, res) => {
      let bytes = 0;
      req.on('data', (chunk) => (bytes += chunk.length));
      req.on('end', () => {
        const list = arrivals.get(req.url) ?? [];
        list.push({ at: performance.now(), bytes });
        arrivals.set(req.url, list);
        res.writeHead(204).end();
      });
    },
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const of = (p) => arrivals.get(p) ?? [];
  return {
    url: (p) => `https://127.0.0.1:${port}${p}`,
    count: (p) => of(p).length,
    times: (p) => of(p).map((a) => a.at),
    bytes: (p) => of(p).reduce((sum, a) => sum + a.bytes, 0),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
