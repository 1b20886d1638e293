import { randomBytes, randomUUID } from 'node:crypto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthContextSchema, EchoRequestSchema, EchoService, HealthService } from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { requestContext } from '@kw/platform-context';
import { TEST_NATS_URL, describeWith } from '../../../../test/support/services.js';
import {
  CHUNK_BYTES_HEADER,
  CHUNK_SUBJECT_HEADER,
  CHUNKS_HEADER,
  MAX_MESSAGE_BYTES,
  openChunkServers,
} from './chunks.js';
import { AUTH_HEADER, REQUEST_ID_HEADER } from './context-headers.js';
import { DEADLINE_HEADER } from './deadline.js';
import { ECHO_UNEXPECTED, serveEcho } from './echo-handler.js';
import { connectNats } from './connect-nats.js';
import { InProcessBus } from './in-process-bus.js';
import { InProcessTransport } from './in-process-transport.js';
import type { Logger } from './logger.js';
import { NatsTransport } from './nats-transport.js';
import { serve } from './serve.js';
import { ServiceClient } from './service-client.js';
import { subjectOf } from './subject.js';
import type { Message, Transport, TransportOptions } from './transport.js';

/**
 * The same cases against every Transport adapter: the embedded and the distributed modes
 * must be indistinguishable to the components.
 */

interface LogEntry {
  level: 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg?: string;
}

type Connect = (options: TransportOptions & { subjectPrefix: string; logger: Logger }) => Promise<Transport>;

const echo = EchoService.method.echo;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => void | Promise<void>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(10);
    }
  }
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a rejection');
}

function transportConformance(connect: Connect): void {
  let opened: Transport[] = [];
  let logs: LogEntry[] = [];
  let prefix = '';
  const logger: Logger = {
    info: (obj, msg) => logs.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => logs.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => logs.push({ level: 'error', obj, msg }),
  };

  beforeEach(() => {
    opened = [];
    logs = [];
    prefix = `test.${randomUUID().slice(0, 8)}.`;
  });
  afterEach(async () => {
    await Promise.all(opened.map((t) => t.drain()));
  });

  const open = async (component: string, options: Partial<TransportOptions> = {}): Promise<Transport> => {
    const transport = await connect({ ...options, component, subjectPrefix: prefix, logger });
    opened.push(transport);
    return transport;
  };

  /** A "caller" and a "search" component serving Echo. */
  async function pair(): Promise<{ caller: Transport; server: Transport; client: ServiceClient }> {
    const [caller, server] = await Promise.all([open('caller'), open('search')]);
    serveEcho(server);
    await server.flush();
    return { caller, server, client: new ServiceClient(caller, { timeoutMs: 5_000 }) };
  }

  it('answers a typed request', async () => {
    const { client } = await pair();
    const reply = await client.call(echo, { text: 'hello' }, { target: 'search' });
    expect(reply.$typeName).toBe('kw.platform.v1.EchoResponse');
    expect(reply.text).toBe('hello');
    expect(reply.servedBy).toBe('search');
  });

  it('restores the request id and auth context on the handler side, from headers only', async () => {
    const { client } = await pair();
    const auth = create(AuthContextSchema, {
      userId: 'u1',
      credentialId: 'pat_1',
      credentialKind: 'pat',
      scopes: ['fragments:read', 'fragments:write'],
      workspaceIds: ['w1', 'w2'],
    });
    const reply = await requestContext.run({ requestId: 'req-123', auth }, () =>
      client.call(echo, { text: 'x' }, { target: 'search' }),
    );
    expect(reply.requestId).toBe('req-123');
    expect(reply.auth).toEqual(auth);

    const anonymous = await client.call(echo, { text: 'x' }, { target: 'search' });
    expect(anonymous.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(anonymous.auth).toBeUndefined();
  });

  it('carries the context in kw-* headers, never in the payload', async () => {
    const caller = await open('caller');
    const server = await open('search');
    const seen: Message[] = [];
    server.handle(subjectOf(echo, 'search'), async (message) => {
      seen.push(message);
      return { data: toBinary(echo.output, create(echo.output, {})) };
    });
    await server.flush();
    const auth = create(AuthContextSchema, { userId: 'u2', allWorkspaces: true });
    await requestContext.run({ requestId: 'req-456', auth }, () =>
      new ServiceClient(caller).call(echo, { text: 'payload' }, { target: 'search' }),
    );

    const [message] = seen;
    expect(message.headers[REQUEST_ID_HEADER]).toBe('req-456');
    expect(fromBinary(AuthContextSchema, Buffer.from(message.headers[AUTH_HEADER], 'base64'))).toEqual(auth);
    expect(fromBinary(EchoRequestSchema, message.data)).toEqual(create(EchoRequestSchema, { text: 'payload' }));
  });

  it('re-throws an AppError from the handler as an equal AppError', async () => {
    const caller = await open('caller');
    const server = await open('workspaces');
    const thrown = new AppError({
      status: 409,
      code: 'HOSTED_ZONE_REQUIRED',
      message: 'Ce contenu vit dans une zone hébergée',
      details: { hostedZoneId: 'hz_1', endpointUrl: 'https://leaf.example', nested: { list: [1, 'two'] } },
      param: 'workspace',
    });
    serve(
      server,
      echo,
      () => {
        throw thrown;
      },
      { target: 'workspaces' },
    );
    await server.flush();

    const err = await rejection(new ServiceClient(caller).call(echo, {}, { target: 'workspaces' }));
    expect(err.toJSON()).toEqual(thrown.toJSON());
    expect(err.message).toBe(thrown.message);
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('reports any other error as 500 INTERNAL_ERROR, logging but not leaking its message', async () => {
    const { client } = await pair();
    const err = await rejection(
      client.call(echo, { text: 'secret-password', failWithCode: ECHO_UNEXPECTED }, { target: 'search' }),
    );
    expect(err.status).toBe(500);
    expect(err.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(err.toJSON())).not.toContain('secret-password');
    const errorId = err.details?.errorId;
    expect(typeof errorId).toBe('string');

    const logged = logs.find((l) => l.level === 'error' && l.obj.errorId === errorId);
    expect(logged).toBeDefined();
    expect(String((logged?.obj.err as Error).message)).toContain('secret-password');
  });

  it('fails with 503 SERVICE_UNAVAILABLE at once when nobody handles the subject', async () => {
    const caller = await open('caller');
    const started = Date.now();
    const err = await rejection(
      new ServiceClient(caller).call(echo, { text: 'x' }, { target: 'nobody', timeoutMs: 5_000 }),
    );
    expect(err.status).toBe(503);
    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect(err.message).toContain('nobody');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('fails with 504 SERVICE_TIMEOUT when the handler is slower than the timeout', async () => {
    const { client } = await pair();
    const started = Date.now();
    const err = await rejection(client.call(echo, { text: 'x', delayMs: 1_000 }, { target: 'search', timeoutMs: 300 }));
    const elapsed = Date.now() - started;
    expect(err.status).toBe(504);
    expect(err.code).toBe('SERVICE_TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(900);
  });

  it('drops, unhandled, a request that reaches its handler after its caller stopped waiting', async () => {
    const expired: string[] = [];
    const [caller, server] = await Promise.all([
      open('caller'),
      open('search', { deadlineGraceMs: 0, onExpired: (subject) => expired.push(subject) }),
    ]);
    let handled = 0;
    server.handle('search.v1.create', async (message) => {
      handled++;
      return { data: message.data };
    });
    await server.flush();

    const started = Date.now();
    const late = caller.request('search.v1.create', new Uint8Array([1]), { timeoutMs: 30 });
    // A stalled event loop (or a stopped process): the handler's side reads the request only
    // after its caller's deadline.
    while (Date.now() - started < 150) {
      // busy
    }
    expect((await rejection(late)).status).toBe(504);
    await eventually(() => expect(expired).toEqual(['search.v1.create']));
    expect(handled).toBe(0);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'request dropped: its caller stopped waiting' }),
    );

    // A request in time is handled as ever.
    const reply = await caller.request('search.v1.create', new Uint8Array([2]), { timeoutMs: 5_000 });
    expect([...reply.data]).toEqual([2]);
    expect(handled).toBe(1);
  });

  it('shares requests among the instances of a component (queue group), each request handled once', async () => {
    const caller = await open('caller');
    const [a, b] = await Promise.all([open('search'), open('search')]);
    const handled = { a: 0, b: 0 };
    for (const [transport, name] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      serve(
        transport,
        echo,
        () => {
          handled[name]++;
          return { servedBy: name };
        },
        { target: 'search' },
      );
    }
    await Promise.all([a.flush(), b.flush()]);
    const client = new ServiceClient(caller);

    const replies = await Promise.all(Array.from({ length: 40 }, () => client.call(echo, {}, { target: 'search' })));
    await sleep(50); // a request delivered to both would be handled twice, the second reply dropped
    expect(handled.a + handled.b).toBe(40);
    expect(handled.a).toBeGreaterThan(0);
    expect(handled.b).toBeGreaterThan(0);
    expect(replies.filter((r) => r.servedBy === 'a')).toHaveLength(handled.a);
  });

  it('answers 200 concurrent requests, each with its own reply', async () => {
    const { client } = await pair();
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        requestContext.run({ requestId: `req-${i}` }, () =>
          client.call(echo, { text: `n${i}`, delayMs: i % 7 }, { target: 'search' }),
        ),
      ),
    );
    replies.forEach((reply, i) => {
      expect(reply.text).toBe(`n${i}`);
      expect(reply.requestId).toBe(`req-${i}`);
    });
  });

  it('delivers events to every subscriber, and once per queue group', async () => {
    const [publisher, s1, s2, g1, g2] = await Promise.all(
      ['webhooks', 'search', 'files', 'fragments', 'fragments'].map((c) => open(c)),
    );
    const got: Record<string, Message[]> = { s1: [], s2: [], g1: [], g2: [] };
    s1.subscribe('fragments.v1.events.created', (m) => void got.s1.push(m));
    s2.subscribe('fragments.v1.events.created', (m) => void got.s2.push(m));
    g1.subscribe('fragments.v1.events.created', (m) => void got.g1.push(m), { queue: 'fragments' });
    g2.subscribe('fragments.v1.events.created', (m) => void got.g2.push(m), { queue: 'fragments' });
    await Promise.all([s1, s2, g1, g2].map((t) => t.flush()));

    for (let i = 0; i < 10; i++)
      publisher.publish('fragments.v1.events.created', new Uint8Array([i]), {
        headers: { [REQUEST_ID_HEADER]: `e${i}` },
      });
    await eventually(() => {
      expect(got.s1).toHaveLength(10);
      expect(got.s2).toHaveLength(10);
      expect(got.g1.length + got.g2.length).toBe(10);
    });
    await sleep(100); // no late duplicates
    expect(got.g1.length + got.g2.length).toBe(10);
    expect(got.s1.map((m) => m.data[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(got.s1[3].headers[REQUEST_ID_HEADER]).toBe('e3');
  });

  it('logs a failing event handler and keeps delivering', async () => {
    const [publisher, subscriber] = await Promise.all([open('webhooks'), open('search')]);
    const got: number[] = [];
    subscriber.subscribe('search.v1.events.reindex', (m) => {
      if (m.data[0] === 1) throw new Error('boom');
      got.push(m.data[0]);
    });
    await subscriber.flush();
    for (const n of [1, 2]) publisher.publish('search.v1.events.reindex', new Uint8Array([n]));
    await eventually(() => expect(got).toEqual([2]));
    expect(logs.some((l) => l.level === 'error' && (l.obj.err as Error).message === 'boom')).toBe(true);
  });

  it('drains: in-flight requests finish and are answered, then nothing more is taken', async () => {
    const caller = await open('caller');
    const server = await open('search');
    let started = 0;
    serve(
      server,
      echo,
      async (input) => {
        started++;
        await sleep(300);
        return { text: input.text };
      },
      { target: 'search' },
    );
    await server.flush();
    const client = new ServiceClient(caller);

    const calls = Array.from({ length: 5 }, (_, i) => client.call(echo, { text: `d${i}` }, { target: 'search' }));
    await eventually(() => expect(started).toBe(5));
    await server.drain();
    expect((await Promise.all(calls)).map((r) => r.text)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);

    const err = await rejection(client.call(echo, {}, { target: 'search', timeoutMs: 2_000 }));
    expect(err.status).toBe(503);
  });

  it('refuses a malformed payload or auth header with 400', async () => {
    const { caller } = await pair();
    const subject = subjectOf(echo, 'search');
    const garbage = await rejection(caller.request(subject, new Uint8Array([0xff, 0xff, 0xff]), { timeoutMs: 2_000 }));
    expect([garbage.status, garbage.code]).toEqual([400, 'BAD_REQUEST']);
    const badAuth = await rejection(
      caller.request(subject, new Uint8Array(), {
        timeoutMs: 2_000,
        headers: { [AUTH_HEADER]: 'bm90IGEgcHJvdG9idWY/' },
      }),
    );
    expect([badAuth.status, badAuth.code]).toEqual([400, 'BAD_REQUEST']);
  });

  it('refuses a request over MAX_MESSAGE_BYTES with 413, and turns a reply over it into a logged 500', async () => {
    const caller = await open('caller');
    const server = await open('search');
    let handled = 0;
    server.handle('search.v1.huge', async () => {
      handled++;
      return { data: new Uint8Array(MAX_MESSAGE_BYTES + 1) };
    });
    await server.flush();

    const tooBig = await rejection(
      caller.request('search.v1.huge', new Uint8Array(MAX_MESSAGE_BYTES + 1), { timeoutMs: 5_000 }),
    );
    expect([tooBig.status, tooBig.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(handled).toBe(0);
    const bigReply = await rejection(caller.request('search.v1.huge', new Uint8Array(1), { timeoutMs: 5_000 }));
    expect([bigReply.status, bigReply.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(logs.some((l) => l.level === 'error' && (l.obj.err as Error).message.includes('exceeds'))).toBe(true);
  });

  it('refuses with 413, before fetching anything, a chunked request that announces more than MAX_MESSAGE_BYTES', async () => {
    const caller = await open('caller');
    const server = await open('search');
    let handled = 0;
    server.handle('search.v1.huge', async () => {
      handled++;
      return { data: new Uint8Array() };
    });
    await server.flush();
    const announced = {
      [CHUNKS_HEADER]: '65',
      [CHUNK_BYTES_HEADER]: String(MAX_MESSAGE_BYTES + 1),
      [CHUNK_SUBJECT_HEADER]: `_kw.chunks.${randomUUID()}`,
    };
    const err = await rejection(
      caller.request('search.v1.huge', new Uint8Array(1024 * 1024 - 4096), { timeoutMs: 5_000, headers: announced }),
    );
    expect([err.status, err.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(handled).toBe(0);
  });

  it('carries a 3 MiB request and a 3 MiB reply byte-exact in chunks, headers intact, and leaves no chunk subject behind', async () => {
    const [caller, server, spy] = await Promise.all([open('caller'), open('search'), open('spy')]);
    const request = randomBytes(3 * 1024 * 1024 + 7);
    const response = randomBytes(3 * 1024 * 1024 + 11);
    const seen: Message[] = [];
    server.handle('search.v1.big', async (message) => {
      seen.push(message);
      return { data: response, headers: { 'kw-answer': 'big' } };
    });
    // A plain subscriber of the subject sees what travels on the wire: the first chunk.
    const onWire: Message[] = [];
    spy.subscribe('search.v1.big', (m) => void onWire.push(m));
    await Promise.all([server.flush(), spy.flush()]);

    const headers = { [REQUEST_ID_HEADER]: 'req-big', [AUTH_HEADER]: Buffer.from('auth').toString('base64') };
    const reply = await caller.request('search.v1.big', request, { timeoutMs: 5_000, headers });

    expect(Buffer.from(reply.data).equals(response)).toBe(true);
    expect(reply.headers).toEqual({ 'kw-answer': 'big' });
    expect(seen).toHaveLength(1);
    expect(Buffer.from(seen[0].data).equals(request)).toBe(true);
    // The caller's headers, and its deadline (deadline.ts).
    expect(seen[0].headers).toEqual({ ...headers, [DEADLINE_HEADER]: expect.stringMatching(/^\d+$/) });

    await eventually(() => expect(onWire).toHaveLength(1));
    const first = onWire[0];
    expect(first.data.byteLength).toBeLessThanOrEqual(caller.maxPayload);
    expect(first.headers).toMatchObject({ ...headers, [CHUNK_BYTES_HEADER]: String(request.byteLength) });
    expect(Number(first.headers[CHUNKS_HEADER])).toBeGreaterThan(2);
    const chunkSubject = first.headers[CHUNK_SUBJECT_HEADER];
    expect(chunkSubject).toMatch(/^_kw\.chunks\./);

    // Nobody answers the chunk subject any more, and no chunk server (request or reply side) is left.
    await eventually(async () => {
      const gone = await rejection(caller.request(chunkSubject, Buffer.from('1'), { timeoutMs: 1_000 }));
      expect(gone.status).toBe(503);
    });
    await eventually(() => expect(openChunkServers()).toBe(0));
  });

  it('carries big typed calls with the request context, and errors still cross', async () => {
    const { client } = await pair();
    const auth = create(AuthContextSchema, {
      userId: 'u3',
      credentialId: 'pat_3',
      scopes: ['fragments:read'],
      workspaceIds: ['w1'],
    });
    const text = 'é'.repeat(1_500_000); // 3 MB of UTF-8 each way
    const reply = await requestContext.run({ requestId: 'req-typed-big', auth }, () =>
      client.call(echo, { text }, { target: 'search' }),
    );
    expect(reply.text).toBe(text);
    expect(reply.requestId).toBe('req-typed-big');
    expect(reply.auth).toEqual(auth);

    const caller = await open('caller');
    const server = await open('workspaces');
    const thrown = new AppError({
      status: 409,
      code: 'KEY_EXISTS',
      message: 'Key taken',
      details: { existingId: 'f1' },
    });
    serve(
      server,
      echo,
      (input) => {
        if (input.text.length === text.length) throw thrown;
        return {};
      },
      { target: 'workspaces' },
    );
    await server.flush();
    const err = await rejection(new ServiceClient(caller).call(echo, { text }, { target: 'workspaces' }));
    expect(err.toJSON()).toEqual(thrown.toJSON());
    await eventually(() => expect(openChunkServers()).toBe(0));
  });

  it('routes per-component contracts to the named component only', async () => {
    const caller = await open('caller');
    const search = await open('search');
    serve(
      search,
      HealthService.method.check,
      () => ({
        component: 'search',
        status: 'ok',
        version: '1.0.0',
        dependencies: [{ name: 'db', ok: true, latencyMs: 3 }],
      }),
      {
        target: 'search',
      },
    );
    await search.flush();
    const client = new ServiceClient(caller);

    const health = await client.call(HealthService.method.check, {}, { target: 'search' });
    expect(health.status).toBe('ok');
    expect(health.dependencies[0]).toMatchObject({ name: 'db', ok: true, latencyMs: 3 });
    expect((await rejection(client.call(HealthService.method.check, {}, { target: 'files' }))).status).toBe(503);
  });
}

describe('InProcessTransport conformance', () => {
  const bus = new InProcessBus();
  transportConformance(async (options) => new InProcessTransport({ ...options, bus }));
});

describeWith(['nats'], 'NatsTransport conformance', () => {
  transportConformance(
    async (options) =>
      new NatsTransport(
        await connectNats(TEST_NATS_URL!, `conformance-${options.component}`, {
          logger: options.logger,
          waitOnFirstConnect: false,
        }),
        options,
      ),
  );
});

describeWith(['nats'], 'NatsTransport chunks', () => {
  it('keeps chunk subjects under the subject prefix, so runs sharing a server never see each other', async () => {
    const prefix = `test.${randomUUID().slice(0, 8)}.`;
    const transports = await Promise.all(
      ['caller', 'search'].map(
        async (component) =>
          new NatsTransport(await connectNats(TEST_NATS_URL!, `chunks-${component}`, { waitOnFirstConnect: false }), {
            component,
            subjectPrefix: prefix,
          }),
      ),
    );
    const tap = await connectNats(TEST_NATS_URL!, 'chunks-tap', { waitOnFirstConnect: false });
    try {
      const [caller, server] = transports;
      const prefixed: string[] = [];
      const bare: string[] = [];
      tap.subscribe(`${prefix}_kw.chunks.>`, { callback: (_err, msg) => void prefixed.push(msg.subject) });
      tap.subscribe('_kw.chunks.>', { callback: (_err, msg) => void bare.push(msg.subject) });
      await tap.flush();
      server.handle('search.v1.big', async (message) => ({ data: message.data }));
      await server.flush();

      const payload = randomBytes(2 * 1024 * 1024 + 5);
      const reply = await caller.request('search.v1.big', payload, { timeoutMs: 5_000 });
      expect(Buffer.from(reply.data).equals(payload)).toBe(true);
      await tap.flush();
      // Request chunks fetched by the handler, reply chunks fetched by the caller: two subjects.
      await eventually(() => expect(new Set(prefixed).size).toBe(2));
      expect(bare).toEqual([]);
    } finally {
      await Promise.all([...transports.map((t) => t.drain()), tap.close()]);
    }
  });
});
