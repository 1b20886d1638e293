import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { propagation, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { extractTraceContext, injectTraceHeaders } from './propagation.js';
import { startSpan, withSpan } from './spans.js';
import { startTracing, stopTracing, tracesUrl, tracingEnabled } from './start-tracing.js';

afterEach(async () => {
  await stopTracing();
});

describe('startTracing', () => {
  it('registers nothing without an OTLP endpoint: the API stays a no-op', async () => {
    const handle = await startTracing({ serviceName: 'kw-test' });
    expect(handle.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    const provider = trace.getTracerProvider();
    expect(provider).toBeInstanceOf(ProxyTracerProvider);
    expect((provider as ProxyTracerProvider).getDelegateTracer('x')).toBeUndefined();
    expect(trace.getTracer('x').startSpan('y').isRecording()).toBe(false);

    // The platform's helpers call straight through, with no span and no header.
    expect(await withSpan('s', {}, async (span) => span)).toBeUndefined();
    expect(startSpan('s', {})).toBeUndefined();
    const headers = injectTraceHeaders({ 'kw-request-id': 'r' });
    expect(headers).toEqual({ 'kw-request-id': 'r' });
    const incoming = extractTraceContext({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(trace.getSpanContext(incoming)).toBeUndefined();
    await expect(handle.flush()).resolves.toBeUndefined();
  });

  it('builds the traces URL from the base endpoint, or takes the traces endpoint as is', () => {
    expect(tracesUrl({})).toBeUndefined();
    expect(tracesUrl({ endpoint: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl({ endpoint: 'http://a:4318', tracesEndpoint: 'http://b/traces' })).toBe('http://b/traces');
  });

  describe('with an endpoint', () => {
    let server: Server | undefined;
    afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

    it('exports spans that continue an incoming traceparent and travel in headers', async () => {
      const bodies: Array<{ resourceSpans: unknown[] }> = [];
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: unknown[] });
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
      const { port } = server.address() as AddressInfo;

      const handle = await startTracing({
        serviceName: 'kw-test',
        endpoint: `http://127.0.0.1:${port}`,
        scheduledDelayMs: 10,
      });
      expect(handle.enabled).toBe(true);
      expect(await startTracing({ serviceName: 'other' })).toMatchObject({ enabled: true });

      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const parent = extractTraceContext({ traceparent: `00-${traceId}-b7ad6b7169203331-01` });
      const headers = await withSpan('outer', { parent }, async () => {
        expect(trace.getActiveSpan()?.spanContext().traceId).toBe(traceId);
        return injectTraceHeaders({} as Record<string, string>);
      });
      expect(headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(propagation.fields()).toContain('traceparent');
      await handle.flush();

      const exported = bodies.map((b) => JSON.stringify(b)).join();
      expect(exported).toContain('"outer"');
      expect(exported).toContain('kw-test');
    });
  });
});
