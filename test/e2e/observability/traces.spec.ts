import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, authHeaders } from '../../support/accounts.js';
import { readJson } from '../../support/http.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';

/** One span as the OTLP/HTTP JSON exporter sends it, with its process's service.name. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const SPAN_KIND_PRODUCER = 4;
const SPAN_KIND_CONSUMER = 5;

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

const valueOf = (v: AnyValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/** A tiny OTLP/HTTP receiver: POST /v1/traces with the JSON exporter's body. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: ExportedSpan[] }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
}

describeWith(['postgres', 'nats'], 'traces (distributed mode, OTLP/HTTP export)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The trace of the fragment create (first test); its event must continue it. */
  let requestTraceId = '';
  const admin = adminEnv();

  beforeAll(async () => {
    receiver = await startReceiver();
    db = await createTestDatabase('kw_traces');
    platform = await startDistributed({
      DATABASE_URL: db.url,
      NATS_URL: TEST_NATS_URL!,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...admin,
    });
  }, 120_000);

  afterAll(async () => {
    if (platform) expect(await platform.stop()).toBe(0);
    await db?.drop();
    await new Promise<void>((resolve) => (receiver ? receiver.server.close(() => resolve()) : resolve()));
  }, 60_000);

  it('follows POST /api/memory-fragments from the gateway across the NATS hops into the database', async () => {
    const json = { ...authHeaders(admin.ADMIN_TOKEN), 'content-type': 'application/json' };
    const created = await fetch(`${platform.url}/api/workspaces`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: `traces ${randomBytes(3).toString('hex')}` }),
    });
    expect(created.status).toBe(201);
    const { workspace } = await readJson(created);
    const types = await readJson(
      await fetch(`${platform.url}/api/workspaces/${workspace.id}/fragment-types`, { headers: json }),
    );
    const note = types.items.find((t: { key: string }) => t.key === 'note');

    const traceId = randomBytes(16).toString('hex');
    requestTraceId = traceId;
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await fetch(`${platform.url}/api/memory-fragments`, {
      method: 'POST',
      headers: { ...json, traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({ workspaceId: workspace.id, fragmentTypeId: note.id, title: 'Traced', content: 'Body' }),
    });
    expect(res.status).toBe(201);

    const spansOfTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    const byId = () => new Map(spansOfTrace().map((s) => [s.spanId, s]));
    /** Whether a span's parent chain (within the trace) reaches `ancestor`. */
    const descends = (span: ExportedSpan, ancestor: ExportedSpan) => {
      const spans = byId();
      for (let s: ExportedSpan | undefined = span; s; s = s.parentSpanId ? spans.get(s.parentSpanId) : undefined)
        if (s.parentSpanId === ancestor.spanId) return true;
      return false;
    };

    // The gateway's server span continues the caller's trace.
    await expect
      .poll(() => spansOfTrace().find((s) => s.service === 'kw-gateway' && s.kind === SPAN_KIND_SERVER), {
        timeout: 30_000,
      })
      .toBeDefined();
    const edge = spansOfTrace().find((s) => s.service === 'kw-gateway' && s.kind === SPAN_KIND_SERVER)!;
    expect(edge.parentSpanId).toBe(callerSpanId);
    expect(edge.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/memory-fragments',
      'http.response.status_code': 201,
    });

    // A NATS hop: a client span in one service, its server span in another, below the edge.
    const hop = () =>
      spansOfTrace()
        .filter((s) => s.kind === SPAN_KIND_SERVER && s.attributes['rpc.system'] === 'kw-transport')
        .map((server) => ({ server, client: byId().get(server.parentSpanId ?? '') }))
        .find(
          ({ server, client }) =>
            server.service === 'kw-fragments' &&
            client?.kind === SPAN_KIND_CLIENT &&
            client.service === 'kw-gateway' &&
            client.name === server.name,
        );
    await expect.poll(hop, { timeout: 30_000 }).toBeDefined();
    const { server, client } = hop()!;
    expect(server.name).toMatch(/^kw\.fragments\.v1\.\w+\/\w+$/);
    expect(descends(client!, edge)).toBe(true);

    // Database spans of the fragments process, below that server span, with the SQL text only.
    const dbSpans = () =>
      spansOfTrace().filter(
        (s) => s.service === 'kw-fragments' && s.attributes['db.system'] === 'postgresql' && descends(s, server),
      );
    await expect
      .poll(() => dbSpans().some((s) => typeof s.attributes['db.statement'] === 'string'), {
        timeout: 30_000,
      })
      .toBe(true);
    const statements = dbSpans()
      .map((s) => s.attributes['db.statement'])
      .filter((t): t is string => typeof t === 'string');
    expect(statements.some((t) => /insert/i.test(t))).toBe(true);
    for (const text of statements) expect(text).not.toContain('Traced');
    expect(dbSpans().some((s) => s.name.startsWith('prisma '))).toBe(true);

    // Every process involved exported spans of this one trace (gateway, fragments, and those they asked).
    expect(new Set(spansOfTrace().map((s) => s.service)).size).toBeGreaterThanOrEqual(2);
  });

  it('links the outbox relay publishing fragment.created to the consumers that handle it, through the event headers', async () => {
    // The fragment created above: the relay publishes its event, the consumers (enrichment,
    // search, webhooks) handle it, each delivery a consumer span child of the producer span.
    const linked = () => {
      const producers = receiver.spans.filter(
        (s) =>
          s.kind === SPAN_KIND_PRODUCER &&
          s.attributes['messaging.destination.name'] === 'fragment.created' &&
          // The event carries the request's trace: the relay's span continues it.
          s.traceId === requestTraceId,
      );
      return receiver.spans.filter(
        (s) =>
          s.kind === SPAN_KIND_CONSUMER &&
          producers.some((p) => p.spanId === s.parentSpanId && p.traceId === s.traceId),
      );
    };
    await expect.poll(() => linked().length > 0, { timeout: 30_000 }).toBe(true);
    const consumer = linked()[0]!;
    expect(consumer.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'fragment.created',
    });
    expect(consumer.name).toBe('fragment.created process');
  });
});
