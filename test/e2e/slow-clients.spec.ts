import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, rawRequestInPieces, type RawAnswer } from '../support/raw-http.js';
import { startOpenAiStandIn, type StandIn } from '../support/stand-ins/openai-stand-in.js';
import { startFragmentsPlatform, type Person } from './fragments/fragments-fixture.js';

/** Receive timeouts small enough for a test; the gaps below are far from them either way. */
const BODY_IDLE_MS = 1_000;
const HEADERS_MS = 2_000;
const RECEIVE_MS = 6_000;
/** The slowest average pace a body may keep once it has been arriving for BODY_IDLE_MS. */
const MIN_BYTES_PER_SECOND = 20;
/** A slow but steady client: a piece every quarter of the idle timeout. */
const STEADY_GAP_MS = 250;
/** The model's silence before each streamed event: twice the idle timeout, the stream longer than RECEIVE_MS. */
const EVENT_GAP_MS = 2_000;
/** How long a test waits for an answer before it calls the connection held: far past every timeout. */
const PATIENCE_MS = 25_000;

const readdirOrNone = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/**
 * Slow clients over real sockets (docs/operations.md, "Slow clients"): a body that goes idle is
 * answered 408 in its route's error shape and the connection closed, with nothing written; a slow
 * but steady body is served; a request still arriving after REQUEST_RECEIVE_TIMEOUT_MS, or
 * headers after HEADERS_TIMEOUT_MS, is answered 408 too; and an answer that streams for longer
 * than all of them is not cut.
 */
describe('slow clients', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let model: StandIn;
  let owner: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;

  beforeAll(async () => {
    model = await startOpenAiStandIn({ eventGapMs: EVENT_GAP_MS });
    p = await startFragmentsPlatform({
      BODY_IDLE_TIMEOUT_MS: String(BODY_IDLE_MS),
      HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      REQUEST_RECEIVE_TIMEOUT_MS: String(RECEIVE_MS),
      BODY_MIN_BYTES_PER_SECOND: String(MIN_BYTES_PER_SECOND),
      CHAT_PROVIDERS: JSON.stringify({
        providers: [
          {
            id: 'standin',
            kind: 'openai',
            baseUrl: model.url,
            apiKey: 'sk-slow',
            retries: 0,
            models: [{ id: 'gpt-4o-mini' }],
          },
        ],
      }),
    });
    owner = await p.person();
    ws = await p.workspace(owner);
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
    await model?.close();
  });

  /** The head of a JSON POST that declares its whole body's length. */
  const head = (path: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: ${new URL(p.platform.url).host}\r\nAuthorization: Bearer ${owner.auth}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  const fragment = (title: string, content = 'slow '.repeat(40)) =>
    JSON.stringify({ workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title, content });
  const chat = (fields: Record<string, unknown> = {}) =>
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...fields });
  const titles = async (): Promise<string[]> =>
    (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200)).items.map(
      (f: { title: string }) => f.title,
    );
  const timedOut = (answer: RawAnswer) => {
    expect(answer.closed, 'the server closed the connection').toBe(true);
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['x-request-id']).toBeTruthy();
    return JSON.parse(answer.text);
  };

  it('a body that stops half way is answered 408 REQUEST_TIMEOUT, the connection closed, nothing created', async () => {
    const body = fragment('never finished');
    const answer = await rawRequest(
      p.platform.url,
      head('/api/memory-fragments', body) + body.slice(0, 60),
      PATIENCE_MS,
    );
    expect(timedOut(answer)).toEqual({
      error: `No part of the request body arrived for ${BODY_IDLE_MS} ms`,
      code: 'REQUEST_TIMEOUT',
    });
    expect(await titles()).not.toContain('never finished');
  });

  /** A multipart upload of one text file into the workspace, and its request head. */
  const upload = () => {
    const boundary = 'slow-boundary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${ws.id}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n` +
      `Content-Type: text/plain\r\n\r\n${'half a file '.repeat(4096)}\r\n--${boundary}--\r\n`;
    const start = head('/api/files/upload', body).replace(
      'application/json',
      `multipart/form-data; boundary=${boundary}`,
    );
    return { start, body };
  };
  const partials = () => readdirOrNone(path.join(p.dataDir, 'files', '.partial'));
  /** Waits (not timed) until the check holds or PATIENCE_MS passed. */
  const eventually = async (check: () => boolean) => {
    const deadline = Date.now() + PATIENCE_MS;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  };
  const noFiles = async () =>
    expect((await p.api.ok(owner.auth, 'GET', `/api/files?workspaceId=${ws.id}`, undefined, 200)).items).toEqual([]);

  it('an upload that stops half way through its file is answered 408, and no byte of it is kept', async () => {
    const { start, body } = upload();
    const answer = await rawRequest(p.platform.url, start + body.slice(0, body.length / 2), PATIENCE_MS);
    expect(timedOut(answer)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    // The stream to storage was abandoned: its partial blob is removed.
    await eventually(() => partials().length === 0);
    expect(partials()).toEqual([]);
    await noFiles();
  });

  it('an upload whose client goes away half way through its file keeps no byte of it either', async () => {
    const { start, body } = upload();
    const socket = connect(Number(new URL(p.platform.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(start + body.slice(0, body.length / 2));
    // Gone once its file is being stored, so that there is a stream to storage to abandon.
    await eventually(() => partials().length > 0);
    expect(partials().length).toBeGreaterThan(0);
    socket.destroy();
    await eventually(() => partials().length === 0);
    expect(partials()).toEqual([]);
    await noFiles();
  });

  it('under /api/v1 the 408 is in the OpenAI shape, and the model is never called', async () => {
    const calls = model.requests.length;
    const body = chat();
    const answer = await rawRequest(
      p.platform.url,
      head('/api/v1/chat/completions', body) + body.slice(0, 20),
      PATIENCE_MS,
    );
    expect(timedOut(answer)).toEqual({
      error: {
        message: `No part of the request body arrived for ${BODY_IDLE_MS} ms`,
        type: 'invalid_request_error',
        code: 'request_timeout',
        param: '',
      },
    });
    expect(model.requests.length).toBe(calls);
  });

  it('a body sent slowly but steadily, for longer than the idle timeout, is answered normally', async () => {
    const body = fragment('slow but steady');
    const pieces = body.match(/[\s\S]{1,25}/g) ?? [];
    expect(pieces.length * STEADY_GAP_MS).toBeGreaterThan(2 * BODY_IDLE_MS);
    const answer = await rawRequestInPieces(
      p.platform.url,
      [head('/api/memory-fragments', body), ...pieces],
      STEADY_GAP_MS,
      PATIENCE_MS,
    );
    expect(answer.status, answer.text).toBe(201);
    expect(await titles()).toContain('slow but steady');
  });

  it('a body that never goes idle but is still arriving after REQUEST_RECEIVE_TIMEOUT_MS is answered 408', async () => {
    // Ten bytes a piece, twice the minimum pace: the whole body would take about 20 s.
    const body = fragment('ten bytes at a time', 'slow '.repeat(150));
    const pieces = body.match(/[\s\S]{1,10}/g) ?? [];
    expect((10 * 1000) / STEADY_GAP_MS).toBeGreaterThanOrEqual(2 * MIN_BYTES_PER_SECOND);
    expect(pieces.length * STEADY_GAP_MS).toBeGreaterThan(2 * RECEIVE_MS);
    const answer = await rawRequestInPieces(
      p.platform.url,
      [head('/api/memory-fragments', body), ...pieces],
      STEADY_GAP_MS,
      PATIENCE_MS,
    );
    expect(timedOut(answer)).toEqual({ error: 'The request was not received in time', code: 'REQUEST_TIMEOUT' });
    expect(await titles()).not.toContain('ten bytes at a time');
  });

  it('a body that never goes idle but trickles below BODY_MIN_BYTES_PER_SECOND is answered 408 long before that', async () => {
    // One byte a piece: a fifth of the minimum pace, and a piece far more often than the idle timeout.
    const body = fragment('one byte at a time');
    expect(1000 / STEADY_GAP_MS).toBeLessThan(MIN_BYTES_PER_SECOND / 2);
    const answer = await rawRequestInPieces(
      p.platform.url,
      [head('/api/memory-fragments', body), ...body.split('')],
      STEADY_GAP_MS,
      PATIENCE_MS,
    );
    // Its own message: not the whole request's bound (RECEIVE_MS), which the body would reach later.
    expect(timedOut(answer)).toEqual({
      error: `The request body arrived slower than ${MIN_BYTES_PER_SECOND} bytes per second`,
      code: 'REQUEST_TIMEOUT',
    });
    expect(await titles()).not.toContain('one byte at a time');
  });

  it('headers still arriving after HEADERS_TIMEOUT_MS are answered 408', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `X-Slow-${i}: ${i}\r\n`);
    const answer = await rawRequestInPieces(
      p.platform.url,
      [`GET /api/version HTTP/1.1\r\nHost: x\r\n`, ...lines],
      STEADY_GAP_MS,
      PATIENCE_MS,
    );
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.text)).toEqual({ error: 'The request was not received in time', code: 'REQUEST_TIMEOUT' });
  });

  it('an answer that streams for longer than every receive timeout, silent longer than the idle one, completes', async () => {
    const res = await fetch(`${p.platform.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.auth}`, 'content-type': 'application/json' },
      body: chat({ stream: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('echo: ');
    expect(text).toContain('hi');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    // By construction, not by the clock: the model was silent EVENT_GAP_MS before each event.
    const events = text.split('\n\n').filter((e) => e.startsWith('data: {')).length;
    expect(events * EVENT_GAP_MS).toBeGreaterThan(RECEIVE_MS);
  });
});
