import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { rawRequest, type RawAnswer } from '../../support/raw-http.js';
import {
  fieldsOf,
  operationsOf,
  plausible,
  resolve,
  stringFields,
  type OpenApiDocument,
  type Operation,
} from './openapi-schema.js';

/**
 * Issue 15: every operation of the served OpenAPI document (so new routes are covered without
 * touching this file) gets hostile requests: missing fields, wrong types, 1 MB strings, deep
 * nesting, invalid UUIDs, NUL and lone surrogates, invalid JSON, wrong content types, oversized
 * paths, queries and headers, and fast-check's random bodies and parameters (fixed seed). The
 * suite fails on any 5xx, a missing x-request-id, or an error body outside docs/errors.md's shape.
 * It collects every failure and reports them grouped, so one run shows everything.
 */
const SEED = 20261124;
const RANDOM_RUNS = 6;
const CONCURRENCY = 4;
const TIMEOUT_MS = 15_000;

interface Probe {
  op: Operation;
  category: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Failure {
  op: string;
  category: string;
  request: string;
  status: number;
  body: string;
  problem: string;
}

const OPENAI_PREFIX = '/api/v1';

/** What docs/errors.md promises for an error body (and JSON-RPC errors on the MCP endpoint). */
function shapeProblem(path: string, status: number, text: string): string | undefined {
  const bare = path.split('?')[0];
  // The authorization endpoint is a page a person sees: a bad client or redirect URI is explained
  // there, in HTML, and never redirected to (docs/oauth-applications.md).
  if (bare === '/oauth2/authorize' && status === 400 && text.startsWith('<!doctype html>'))
    return text.includes('<title>Authorization failed</title>') ? undefined : 'not the authorization error page';
  // The claim page is one too: an unknown, withdrawn or expired claim (a made-up id included) is
  // the approval page with status 404 saying so, and an id the edge refuses (NUL, a lone
  // surrogate, bad percent-encoding: 400; too long: 414) the same page with that status, never a
  // JSON body (docs/errors.md).
  if (/^\/agent\/claim\/[^/]+$/.test(bare) && text.startsWith('<!doctype html>'))
    return [400, 404, 414].includes(status) && text.includes('<title>Approve an agent</title>')
      ? undefined
      : 'not the claim error page';
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return 'error body is not JSON';
  }
  if (path.startsWith(OPENAI_PREFIX)) {
    const e = body?.error;
    const ok =
      e &&
      typeof e.message === 'string' &&
      typeof e.type === 'string' &&
      typeof e.code === 'string' &&
      typeof e.param === 'string';
    return ok ? undefined : 'not the OpenAI error shape';
  }
  // Agent authentication's protocol routes: RFC 6749 §5.2 and RFC 8935 §2.3 error bodies.
  if (bare.startsWith('/oauth2/') || bare === '/agent/identity' || bare === '/agent/identity/claim') {
    return typeof body?.error === 'string' && /^[a-z_]+$/.test(body.error) && typeof body.error_description === 'string'
      ? undefined
      : 'not the RFC 6749 error shape';
  }
  if (bare === '/agent/event/notify') {
    return typeof body?.err === 'string' && /^[a-z_]+$/.test(body.err) && typeof body.description === 'string'
      ? undefined
      : 'not the RFC 8935 error shape';
  }
  if (path.startsWith('/api/mcp') && body?.jsonrpc === '2.0') {
    return typeof body.error?.code === 'number' && typeof body.error?.message === 'string'
      ? undefined
      : 'not a JSON-RPC error';
  }
  if (typeof body?.error !== 'string' || typeof body?.code !== 'string' || !/^[A-Z][A-Z_]*$/.test(body.code))
    return `not {error, code} (status ${status})`;
  return undefined;
}

describe('OpenAPI-driven fuzz suite', () => {
  const dataDir = tempDir('kw-fuzz-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let doc: OpenApiDocument;
  const fixtures: Record<string, string> = {};
  const failures: Failure[] = [];
  let sent = 0;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_CREDENTIAL: '10000000',
      RATE_LIMIT_PER_WORKSPACE: '10000000',
      RATE_LIMIT_PER_ADDRESS: '10000000',
      AUTH_FAILURES_PER_ADDRESS: '10000000',
      AUTH_FAILURES_PER_CREDENTIAL: '10000000',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    });
    base = platform.url;
    doc = (await (await fetch(`${base}/api/docs`)).json()) as OpenApiDocument;
    const auth = { authorization: `Bearer ${admin.ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`fixture ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as any;
    };
    const { workspace } = await post('/api/workspaces', { name: 'fuzz' });
    fixtures.workspace = workspace.id;
    const types = (await (
      await fetch(`${base}/api/workspaces/${workspace.id}/fragment-types`, { headers: auth })
    ).json()) as any;
    fixtures.type = types.items.find((t: { key: string }) => t.key === 'note').id;
    const { fragment } = await post('/api/memory-fragments', {
      workspaceId: workspace.id,
      fragmentTypeId: fixtures.type,
      title: 'fuzz',
      content: '# fuzz\n\nbody',
    });
    fixtures.fragment = fragment.id;
    const { collection } = await post(`/api/workspaces/${workspace.id}/collections`, { name: 'fuzz' });
    fixtures.collection = collection.id;
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A real id where the path names a fixture, a fresh UUID elsewhere. */
  function idFor(op: Operation, name: string): string {
    if (name === 'component') return 'fragments';
    if (name === 'typeId') return fixtures.type;
    if (name === 'collectionId') return fixtures.collection;
    if (name === 'workspaceId') return fixtures.workspace;
    if (name === 'id' && op.path.startsWith('/api/workspaces/')) return fixtures.workspace;
    if (name === 'id' && op.path.startsWith('/api/memory-fragments/')) return fixtures.fragment;
    return randomUUID();
  }

  const ids = { uuid: () => fixtures.workspace };
  const pathParams = (op: Operation) => op.parameters.filter((p) => p.in === 'path');
  const queryParams = (op: Operation) => op.parameters.filter((p) => p.in === 'query');

  function pathOf(op: Operation, override: (name: string) => string | undefined = () => undefined): string {
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => override(name) ?? encodeURIComponent(idFor(op, name)));
  }

  function queryOf(op: Operation, override: Record<string, string> = {}): string {
    const params = new URLSearchParams();
    for (const p of queryParams(op)) {
      if (p.name in override) continue;
      if (!p.required && p.name !== 'workspaceId' && p.name !== 'q') continue;
      const value = plausible(doc, p.schema, ids);
      params.set(p.name, p.name === 'workspaceId' ? fixtures.workspace : String(value));
    }
    const own = params.toString();
    const extra = Object.entries(override)
      .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
      .join('&');
    const all = [own, extra].filter(Boolean).join('&');
    return all ? `?${all}` : '';
  }

  const plausibleBody = (op: Operation): Record<string, unknown> => {
    const value = plausible(doc, op.body, ids);
    const body = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    if ('workspaceId' in body) body.workspaceId = fixtures.workspace;
    if ('fragmentTypeId' in body) body.fragmentTypeId = fixtures.type;
    return body;
  };

  /** The hostile requests for one operation. */
  function probesOf(op: Operation): Probe[] {
    const probes: Probe[] = [];
    const add = (category: string, p: Partial<Probe>) =>
      probes.push({ op, category, method: op.method, path: pathOf(op) + queryOf(op), ...p });
    const json = (body: unknown) => JSON.stringify(body);
    const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
    const body = plausibleBody(op);

    add('plausible', { body: hasBody ? json(body) : undefined });
    add('unauthenticated', { body: hasBody ? json(body) : undefined, headers: { authorization: '' } });
    if (hasBody) {
      add('missing required fields', { body: '{}' });
      add('body is an array', { body: '[1,2,3]' });
      add('body is null', { body: 'null' });
      const wrong: Record<string, unknown> = {};
      for (const name of fieldsOf(doc, op.body)) {
        const v = body[name];
        wrong[name] =
          typeof v === 'string'
            ? 12345
            : typeof v === 'number'
              ? 'not a number'
              : typeof v === 'boolean'
                ? 'yes'
                : Array.isArray(v)
                  ? { not: 'an array' }
                  : [1];
      }
      add('wrong types', { body: json(wrong) });
      const strings = stringFields(doc, op.body);
      if (strings.length > 0) {
        add('1 MB strings', {
          body: json({ ...body, ...Object.fromEntries(strings.slice(0, 3).map((n) => [n, 'x'.repeat(1024 * 1024)])) }),
        });
        for (const name of strings.slice(0, 6)) add(`NUL in ${name}`, { body: json({ ...body, [name]: `a\u0000b` }) });
        add('lone surrogates', {
          body: `{${Object.entries(body)
            .map(([k, v]) => `${json(k)}:${strings.includes(k) ? '"\\ud800 x"' : json(v)}`)
            .join(',')}}`,
        });
        add('invalid UUIDs', { body: json({ ...body, ...Object.fromEntries(strings.map((n) => [n, 'not-a-uuid'])) }) });
      }
      add('deep nesting', { body: '['.repeat(10_000) + ']'.repeat(10_000) });
      add('deep object', { body: '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000) });
      add('invalid JSON', { body: '{"a": ' });
      add('prototype poisoning', { body: '{"__proto__": {"admin": true}}' });
      add('text/plain', { body: 'hello', headers: { 'content-type': 'text/plain' } });
      add('JSON in another charset', {
        body: json(body),
        headers: { 'content-type': 'application/json; charset=latin1' },
      });
      add('form encoded', { body: 'a=1&b=%00', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      add('multipart', {
        body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      add('unknown content type', { body: '\u0000\u0001', headers: { 'content-type': 'application/octet-stream' } });
    }
    for (const p of pathParams(op)) {
      for (const [label, value] of [
        ['invalid UUID', 'not-a-uuid'],
        ['NUL', 'a%00b'],
        ['lone surrogate', '%ED%A0%80'],
        ['bad percent-encoding', '%E0%A4%A'],
        ['8 KB', 'a'.repeat(8192)],
        ['dot segments', '..%2F..%2Fetc'],
      ] as const) {
        add(`path ${p.name}: ${label}`, {
          path: pathOf(op, (name) => (name === p.name ? value : undefined)) + queryOf(op),
          body: hasBody ? json(body) : undefined,
        });
      }
    }
    for (const p of queryParams(op)) {
      const schema = resolve(doc, p.schema);
      for (const [label, value] of [
        ['NUL', 'a%00b'],
        ['lone surrogate', '%ED%A0%80'],
        ['20 KB', 'q'.repeat(20_000)],
        ['wrong type', schema.type === 'string' ? '%5B%5D' : 'abc'],
        ['repeated', `x&${encodeURIComponent(p.name)}=y`],
        ['negative', '-1'],
        ['huge number', '1e308'],
      ] as const) {
        add(`query ${p.name}: ${label}`, {
          path: pathOf(op) + queryOf(op, { [p.name]: value }),
          body: hasBody ? json(body) : undefined,
        });
      }
    }
    add('64 KB query', { path: `${pathOf(op)}?pad=${'p'.repeat(65_536)}` });

    // fast-check: random JSON bodies and random text in the query, reproducible from SEED.
    const random = fc.sample(
      fc.record({
        body: fc.oneof(
          fc.jsonValue({ maxDepth: 4 }),
          fc.dictionary(fc.constantFrom(...fieldsOf(doc, op.body), 'extra'), fc.jsonValue({ maxDepth: 2 })),
        ),
        text: fc.string({ unit: 'binary', maxLength: 40 }),
      }),
      { seed: SEED + probes.length + op.path.length, numRuns: RANDOM_RUNS },
    );
    random.forEach(({ body: randomBody, text }, i) => {
      const name = queryParams(op)[i % Math.max(1, queryParams(op).length)]?.name ?? 'q';
      add(`fast-check #${i}`, {
        path: pathOf(op) + queryOf(op, { [name]: encodeURIComponent(text) }),
        body: hasBody
          ? JSON.stringify({
              ...body,
              ...(randomBody && typeof randomBody === 'object' && !Array.isArray(randomBody)
                ? randomBody
                : { value: randomBody }),
            })
          : undefined,
      });
    });
    return probes;
  }

  async function send(probe: Probe): Promise<void> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${admin.ADMIN_TOKEN}`,
      'content-type': 'application/json',
      ...probe.headers,
    };
    if (!headers.authorization) delete headers.authorization;
    let status = 0;
    let text = '';
    let requestId: string | null = null;
    try {
      const res = await fetch(`${base}${probe.path}`, {
        method: probe.method,
        headers,
        body: probe.body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = res.status;
      requestId = res.headers.get('x-request-id');
      text = await res.text();
    } catch (err) {
      record(probe, 0, '', `no answer: ${(err as Error).message}`);
      return;
    }
    sent++;
    if (status >= 500) record(probe, status, text, `answered ${status}`);
    else if (!requestId) record(probe, status, text, 'no x-request-id');
    else if (status >= 400) {
      const problem = shapeProblem(probe.path, status, text);
      if (problem) record(probe, status, text, problem);
    }
  }

  function record(probe: Probe, status: number, body: string, problem: string): void {
    const request = `${probe.method} ${probe.path.slice(0, 160)}${probe.body ? ` body ${probe.body.slice(0, 120)}` : ''}${probe.headers ? ` headers ${JSON.stringify(probe.headers).slice(0, 120)}` : ''}`;
    failures.push({
      op: `${probe.op.method} ${probe.op.path}`,
      category: probe.category,
      request,
      status,
      body: body.slice(0, 300),
      problem,
    });
  }

  async function runAll(probes: Probe[]): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < probes.length) await send(probes[next++]);
      }),
    );
  }

  function report(): string {
    const groups = new Map<string, Failure[]>();
    for (const f of failures)
      groups.set(`${f.op} [${f.category}]`, [...(groups.get(`${f.op} [${f.category}]`) ?? []), f]);
    return [...groups]
      .map(
        ([key, list]) => `${key}: ${list[0].problem}\n    ${list[0].request}\n    -> ${list[0].status} ${list[0].body}`,
      )
      .join('\n');
  }

  it('answers every operation of the document without a 5xx, with a request id and one error shape', async () => {
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(90);
    // Deletions last, so the fixtures the other operations use still exist while they run.
    const ordered = [
      ...operations.filter((o) => o.method !== 'DELETE'),
      ...operations.filter((o) => o.method === 'DELETE'),
    ];
    const probes = ordered.flatMap(probesOf);
    await runAll(probes);
    expect(sent, 'requests answered').toBeGreaterThan(probes.length * 0.99);
    expect(failures, `seed ${SEED}, ${failures.length} failures of ${probes.length} requests:\n${report()}`).toEqual(
      [],
    );
  }, 240_000);

  it('refuses hostile headers and ambiguous credentials in the error model', async () => {
    const targets = operationsOf(doc)
      .filter((o) => o.method === 'GET' && !o.path.includes('{'))
      .slice(0, 8);
    expect(targets.length).toBeGreaterThan(3);
    const token = admin.ADMIN_TOKEN;
    const cases: Array<[string, (path: string) => string]> = [
      ['bare LF in a header', (p) => `GET ${p} HTTP/1.1\r\nHost: x\r\nX-Bad: a\nb\r\nConnection: close\r\n\r\n`],
      ['NUL in a header', (p) => `GET ${p} HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\nConnection: close\r\n\r\n`],
      [
        '80 KB header',
        (p) => `GET ${p} HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(80_000)}\r\nConnection: close\r\n\r\n`,
      ],
      [
        'two Authorization headers',
        (p) =>
          `GET ${p} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer kwp_forged\r\nConnection: close\r\n\r\n`,
      ],
      ['invalid request line', () => `GET /api/version HTTP/9.9 extra\r\nHost: x\r\nConnection: close\r\n\r\n`],
    ];
    const problems: string[] = [];
    for (const op of targets) {
      for (const [label, build] of cases) {
        const answer: RawAnswer = await rawRequest(base, build(op.path));
        const problem =
          answer.status >= 500 || answer.status < 400
            ? `status ${answer.status}`
            : !answer.headers['x-request-id']
              ? 'no x-request-id'
              : shapeProblem(op.path, answer.status, answer.text);
        if (problem)
          problems.push(`${label} on GET ${op.path}: ${problem} -> ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
