import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../support/processes.js';

/** Every error shape and status of the foundation, asserted on the body, over real HTTP. */
describe('HTTP error model', () => {
  const dataDir = tempDir('kw-errors-');
  let platform: PlatformProcess;
  let base: string;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      DIAGNOSTICS_ENABLED: 'true',
      SERVICE_TIMEOUT_MS: '400',
      BODY_LIMIT_BYTES: '2048',
    });
    base = platform.url;
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const echo = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/diagnostics/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('answers a request through a component with the request id it was given', async () => {
    const res = await echo({ component: 'fragments', text: 'hi' }, { 'x-request-id': 'errors-spec-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('errors-spec-1');
    expect(await readJson(res)).toEqual({ text: 'hi', requestId: 'errors-spec-1', servedBy: 'fragments' });
  });

  it('replaces an unsafe request id with a generated one', async () => {
    const res = await fetch(`${base}/api/version`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('unknown path: 404 NOT_FOUND', async () => {
    const res = await fetch(`${base}/api/no-such-thing`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await readJson(res)).toEqual({ error: 'No route GET /api/no-such-thing', code: 'NOT_FOUND' });
  });

  it('known path, wrong method: 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await fetch(`${base}/api/health`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await readJson(res)).toEqual({
      error: 'DELETE is not allowed on this path; allowed: GET, HEAD',
      code: 'METHOD_NOT_ALLOWED',
    });
  });

  it('a path the router does not serve is 404 whatever the method, a trailing slash included', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/api/version/`, { method });
      expect(res.status, method).toBe(404);
      expect(res.headers.get('allow')).toBeNull();
      expect(await readJson(res)).toEqual({ error: `No route ${method} /api/version/`, code: 'NOT_FOUND' });
    }
    // Under /api/v1 in OpenAI's shape, never a 405 saying GET is not allowed but allowed.
    const models = await fetch(`${base}/api/v1/models/`);
    expect(models.status).toBe(404);
    expect(await readJson(models)).toMatchObject({
      error: { type: 'not_found_error', code: 'not_found', message: 'No route GET /api/v1/models/' },
    });
  });

  it('a path parameter route with the wrong method is 405 too', async () => {
    const res = await fetch(`${base}/api/health/fragments`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect((await readJson(res)).code).toBe('METHOD_NOT_ALLOWED');
  });

  it('a fixed path is its own route, even where a route with an id of another method matches it', async () => {
    // GET /api/hosted-zones/{id} would take "enroll" for an id and answer "Hosted zone not found".
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/api/hosted-zones/enroll`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await readJson(res)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    }
    const unknownZone = await fetch(`${base}/api/hosted-zones/enrollment`);
    expect(unknownZone.status).not.toBe(405);
  });

  it('a wrong method or path answers 405/404 whatever body it carries (its parser refusing it or not)', async () => {
    const bodies: Array<[string, string]> = [
      ['application/x-www-form-urlencoded', 'a=b'],
      ['multipart/form-data; boundary=x', '--x--\r\n'],
      ['text/plain', 'hello'],
      ['application/json', '{"broken": '],
    ];
    for (const [type, body] of bodies) {
      const wrongMethod = await fetch(`${base}/api/health`, { method: 'PUT', headers: { 'content-type': type }, body });
      expect(wrongMethod.status, type).toBe(405);
      expect((await readJson(wrongMethod)).code).toBe('METHOD_NOT_ALLOWED');
      const unknown = await fetch(`${base}/api/no-such-thing`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(unknown.status, type).toBe(404);
    }
  });

  it('malformed JSON: 400 INVALID_JSON', async () => {
    const res = await echo('{"component": "fragments", "text": ');
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error: 'The request body is not valid JSON', code: 'INVALID_JSON' });
  });

  it('oversized body: 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await echo({ component: 'fragments', text: 'x'.repeat(4096) });
    expect(res.status).toBe(413);
    expect(await readJson(res)).toEqual({ error: 'The request body is too large', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('unknown fields and wrong types: 400 VALIDATION_FAILED naming the fields', async () => {
    const res = await echo({ component: 'fragments', text: 7, role: 'owner' });
    expect(res.status).toBe(400);
    const body = await readJson(res);
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['role', 'text']);
    expect(body.error).toMatch(/^(role|text): /);
  });

  it('an error raised in a component crosses the hop with its status and code', async () => {
    const res = await echo({ component: 'search', text: 'x', failWithCode: 'CONFLICT', failWithStatus: 409 });
    expect(res.status).toBe(409);
    expect(await readJson(res)).toEqual({ error: 'Echo failed as asked: x', code: 'CONFLICT' });
  });

  it('unexpected failure: 500 with an error id that is logged, and nothing of the cause', async () => {
    const res = await echo({ component: 'workspaces', text: 'secret-cause-marker', failWithCode: 'UNEXPECTED' });
    expect(res.status).toBe(500);
    const body = await readJson(res);
    expect(body.code).toBe('INTERNAL_ERROR');
    expect(body.errorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(body)).not.toContain('secret-cause-marker');
    // The component logged the real cause; the answer only carries the id.
    await expect
      .poll(() => platform.logs.some((l) => JSON.stringify(l).includes('secret-cause-marker') && l.level === 'error'))
      .toBe(true);
  });

  it('a component that does not answer in time: 504 SERVICE_TIMEOUT', async () => {
    const started = Date.now();
    const res = await echo({ component: 'chat', text: 'slow', delayMs: 3000 });
    expect(res.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(2500);
    // Like a 503: the component is usually back within seconds (docs/errors.md).
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await readJson(res)).toEqual({ error: 'The chat service did not answer in time', code: 'SERVICE_TIMEOUT' });
  });

  it('unknown component: 404', async () => {
    const res = await echo({ component: 'nope', text: 'x' });
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({ error: 'Component not found', code: 'NOT_FOUND' });
  });

  it('OpenAI-compatible routes use the {error:{message,type,code,param}} shape', async () => {
    const res = await fetch(`${base}/api/v1/no-such-model-route`);
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({
      error: {
        message: 'No route GET /api/v1/no-such-model-route',
        type: 'not_found_error',
        code: 'not_found',
        param: '',
      },
    });
  });
});

describe('diagnostics are off by default', () => {
  const dataDir = tempDir('kw-diag-off-');
  let platform: PlatformProcess;
  beforeAll(async () => {
    platform = await startEmbedded(dataDir);
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the echo route exactly like an unknown path, whatever the body', async () => {
    // An invalid body must not be validated (a 400 would tell that the route exists).
    for (const body of [{ component: 'fragments', text: 'x' }, {}, { text: 12 }]) {
      const res = await fetch(`${platform.url}/api/diagnostics/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(404);
      expect(await readJson(res)).toEqual({ error: 'No route POST /api/diagnostics/echo', code: 'NOT_FOUND' });
    }
  });
});
