import { randomBytes } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  AGENTIC_QUERY_MAX,
  AuthContextSchema,
  FragmentListingService,
  FragmentsService,
  GRAPH_QUERY_MAX,
  GraphService,
} from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import { AppError } from '@kw/platform-errors';
import { connectNats, NatsTransport, ServiceClient } from '@kw/platform-transport';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

/**
 * A caller on the bus (the MCP server, the Leaf, an importer) meets the field limits of the
 * REST edge: FragmentsService.CreateFragment called over real NATS, past the gateway and its
 * DTOs, is refused by the fragments service with the answer REST gives for the same body.
 */
const CAP = 20;

describeWith(['postgres', 'nats'], 'field limits over NATS (the service enforces them, not only the REST edge)', () => {
  const prefix = `t${randomBytes(4).toString('hex')}`;
  const admin = adminEnv();
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;
  let transport: NatsTransport;
  let client: ServiceClient;
  let token = '';
  let userId = '';
  let workspaceId = '';
  let noteTypeId = '';

  interface Fields {
    title?: string;
    content?: string;
    tags?: string[];
    createdVia?: string;
    key?: string;
  }

  beforeAll(async () => {
    db = await createTestDatabase('kw_limits');
    platform = await startDistributed({
      DATABASE_URL: db.url,
      NATS_URL: TEST_NATS_URL!,
      NATS_SUBJECT_PREFIX: prefix,
      // Small, so a test can reach the deployment's cap (each workspace has its own count).
      MAX_FRAGMENTS_PER_WORKSPACE: String(CAP),
      ...admin,
    });
    const { user, token: pat } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    token = pat;
    userId = user.id;
    const api = workspacesApi(platform.url);
    const ws = await api.createWorkspace(token, { name: 'Limits' });
    workspaceId = ws.id;
    const types = await api.ok(token, 'GET', `/api/workspaces/${workspaceId}/fragment-types`, undefined, 200);
    noteTypeId = types.items.find((t: any) => t.key === 'note').id;
    transport = new NatsTransport(await connectNats(TEST_NATS_URL!, 'limits-test', { waitOnFirstConnect: false }), {
      component: 'limits-test',
      subjectPrefix: `${prefix}.`,
    });
    client = new ServiceClient(transport, { timeoutMs: 10_000 });
  }, 180_000);

  afterAll(async () => {
    await transport?.drain();
    if (platform) expect(await platform.stop()).toBe(0);
    await db?.drop();
  }, 60_000);

  const input = (fields: Fields = {}) => ({
    workspaceId,
    fragmentTypeId: noteTypeId,
    title: 'Within limits',
    content: 'Some content',
    tagsSupplied: true,
    tags: ['a'],
    createdVia: 'import',
    ...fields,
  });

  /** A call over the bus as the workspace's owner with these scopes (the context the gateway would send). */
  function asOwner<T>(scopes: string[], call: () => Promise<T>): Promise<T> {
    const auth = create(AuthContextSchema, {
      userId,
      credentialId: 'limits-test',
      credentialKind: 'internal',
      scopes,
      allWorkspaces: true,
    });
    return requestContext.run({ requestId: `limits-${Date.now()}`, auth }, call);
  }

  function createOverNats(fields: Fields) {
    return asOwner(['fragments:read', 'fragments:write'], () =>
      client.call(FragmentsService.method.createFragment, input(fields)),
    );
  }

  async function refusalOverNats(fields: Fields): Promise<AppError> {
    try {
      await createOverNats(fields);
    } catch (err) {
      if (AppError.isAppError(err)) return err;
      throw err;
    }
    throw new Error('expected the fragments service to refuse');
  }

  async function overRest(fields: Fields) {
    const { tagsSupplied: _, ...body } = input(fields);
    const res = await fetch(`${platform.url}/api/memory-fragments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('creates a fragment within the limits over NATS (the caller is trusted as the gateway would send it)', async () => {
    const created = await createOverNats({
      title: 'x'.repeat(500),
      tags: Array.from({ length: 50 }, (_, i) => `t${i}`),
    });
    expect(created.fragment?.title).toHaveLength(500);
    expect(created.fragment?.createdVia).toBe('import');
  });

  it.each([
    ['a 501-character title', { title: 'x'.repeat(501) }, 'title'],
    ['51 tags', { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'tags'],
    ['a 101-character tag', { tags: ['x'.repeat(101)] }, 'tags'],
    ['an unknown createdVia', { createdVia: 'leaf' }, 'createdVia'],
    ['a 501-character key', { key: 'k'.repeat(501) }, 'key'],
  ])('refuses %s with the answer REST gives for the same body', async (_, fields, field) => {
    const refusal = await refusalOverNats(fields);
    expect(refusal.status).toBe(400);
    expect(refusal.code).toBe('VALIDATION_FAILED');
    expect(refusal.param).toBe(field);

    const rest = await overRest(fields);
    expect(rest.status).toBe(refusal.status);
    expect(rest.body).toEqual({ error: refusal.message, code: refusal.code, ...refusal.details });
  });

  it('refuses content over 1,000,000 UTF-8 bytes although it has fewer characters', async () => {
    const refusal = await refusalOverNats({ content: 'é'.repeat(500_001) });
    expect(refusal.toJSON()).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'content: must be at most 1000000 bytes',
      param: 'content',
    });
  });

  /** A read over the bus as the workspace's owner (search scope): the answer, or the refusal. */
  async function readOverNats<T>(call: () => Promise<T>): Promise<T | AppError> {
    try {
      return await asOwner(['search:read'], call);
    } catch (err) {
      if (AppError.isAppError(err)) return err;
      throw err;
    }
  }

  it('bounds the query of agentic search and of the graph for every caller, as REST does', async () => {
    const agentic = (query: string) =>
      readOverNats(() => client.call(FragmentListingService.method.agenticSearch, { workspaceId, query, maxLeads: 5 }));
    expect(await agentic('x'.repeat(AGENTIC_QUERY_MAX))).not.toBeInstanceOf(AppError);
    const refused = await agentic('x'.repeat(AGENTIC_QUERY_MAX + 1));
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).toJSON()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', param: 'query' });
    const rest = await fetch(`${platform.url}/api/fragments/agentic-search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId, query: 'x'.repeat(AGENTIC_QUERY_MAX + 1) }),
    });
    expect(rest.status).toBe(400);
    const body = (await rest.json()) as { code: string; error: string };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.error).toMatch(/^query/);

    const graph = await readOverNats(() =>
      client.call(GraphService.method.graphRetrieve, { workspaceId, query: 'x'.repeat(GRAPH_QUERY_MAX + 1) }),
    );
    expect((graph as AppError).toJSON()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', param: 'query' });
  });

  it('holds the deployment’s fragment cap when creates race for its last places (409 FRAGMENT_LIMIT_REACHED)', async () => {
    const api = workspacesApi(platform.url);
    const ws = await api.createWorkspace(token, { name: 'Capped' });
    const types = await api.ok(token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const note = types.items.find((t: any) => t.key === 'note').id;
    const create = (i: number) =>
      api.call(token, 'POST', '/api/memory-fragments', {
        workspaceId: ws.id,
        fragmentTypeId: note,
        title: `Capped ${i}`,
        content: 'c',
        summary: 's',
      });
    for (let i = 0; i < CAP - 3; i++) expect((await create(i)).status).toBe(201);
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => create(100 + i)),
      api.call(token, 'POST', '/api/memory-fragments/bulk', {
        workspaceId: ws.id,
        items: [0, 1, 2].map((i) => ({ fragmentTypeId: note, title: `Bulk ${i}`, content: 'c', summary: 's' })),
      }),
    ]);
    const bulk = answers.pop()!;
    const created =
      answers.filter((a) => a.status === 201).length +
      bulk.body.results.filter((r: any) => r.status === 'created').length;
    expect(created).toBe(3);
    for (const refused of answers.filter((a) => a.status !== 201))
      expect(refused).toMatchObject({
        status: 409,
        body: { code: 'FRAGMENT_LIMIT_REACHED', error: expect.any(String) },
      });
    const limits = await api.ok(token, 'POST', '/api/memory-fragments/check-limits', { workspaceId: ws.id }, 200);
    expect(limits).toMatchObject({
      maxFragmentsPerWorkspace: CAP,
      currentCount: CAP,
      remaining: 0,
      canCreate: false,
      limitedBy: 'deployment',
    });
  }, 60_000);

  it('stored nothing that was refused', async () => {
    const api = workspacesApi(platform.url);
    const list = await api.ok(token, 'GET', `/api/memory-fragments?workspaceId=${workspaceId}`, undefined, 200);
    expect(list.totalCount).toBe(1);
  });
});
