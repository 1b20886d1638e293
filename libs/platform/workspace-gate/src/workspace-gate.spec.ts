import { afterEach, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { AuthContextSchema, WorkspaceAccessChangedSchema, WorkspacesService, type AuthContext } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError } from '@kw/platform-errors';
import { broadcast, InProcessBus, InProcessTransport, serve, ServiceClient } from '@kw/platform-transport';
import { WorkspaceGate } from './workspace-gate.js';

/**
 * The gate where a data-plane component decides: 404 for what the caller may not know, 403 for
 * what it may not do, HOSTED_ZONE_REQUIRED for a Leaf-backed workspace, and cached answers
 * dropped by a broadcast. ResolveAccess is answered over a real in-process transport.
 */
const WS = '0b7e5b1e-7a8c-4d6f-9a0b-1c2d3e4f5a6b';
const USER = '5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d';
const OWNER = '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d';

type Answer = {
  found: boolean;
  relation?: string;
  visibility?: string;
  archived?: boolean;
  hostedZoneId?: string;
  endpointUrl?: string;
  status?: string;
  moveImport?: boolean;
};

type Listed = { id: string; name: string; archivedAt?: string; hostedZoneId?: string; endpointUrl?: string };

function setUp(answer: (workspaceId: string) => Answer, ttlMs = 60_000, listed: Listed[] = []) {
  const bus = new InProcessBus();
  const workspaces = new InProcessTransport({ component: 'workspaces', bus });
  const fragments = new InProcessTransport({ component: 'fragments', bus });
  let calls = 0;
  serve(workspaces, WorkspacesService.method.listAccessibleWorkspaces, async () => ({ workspaces: listed }));
  serve(workspaces, WorkspacesService.method.resolveAccess, async ({ workspaceId }) => {
    calls++;
    return {
      relation: 'none',
      visibility: 'private',
      archived: false,
      hostedZoneId: '',
      endpointUrl: '',
      status: 'active',
      planHolderId: OWNER,
      ...answer(workspaceId),
    };
  });
  const gate = new WorkspaceGate(new ServiceClient(fragments), fragments, { ACCESS_CACHE_TTL_MS: ttlMs });
  gate.onModuleInit();
  return {
    gate,
    calls: () => calls,
    workspaces,
    close: async () => {
      await gate.onModuleDestroy();
      await Promise.all([workspaces.drain(), fragments.drain()]);
    },
  };
}

const auth = (overrides: { credentialId?: string; scopes?: string[] } = {}): AuthContext =>
  create(AuthContextSchema, {
    userId: USER,
    credentialId: 'tok-1',
    credentialKind: 'pat',
    scopes: ['*'],
    allWorkspaces: true,
    ...overrides,
  });
const as = (a?: AuthContext): RequestContext => ({ requestId: 'gate-spec', auth: a });

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AppError.isAppError(err)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe('WorkspaceGate', () => {
  let ctx: ReturnType<typeof setUp> | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  it('lets a member act and says who and how', async () => {
    ctx = setUp(() => ({ found: true, relation: 'collaborator' }));
    const gate = await ctx.gate.authorize(as(auth()), WS, 'fragments:write');
    expect(gate).toEqual({
      workspaceId: WS,
      userId: USER,
      relation: 'collaborator',
      planHolderId: OWNER,
      moveImport: false,
      enrichment: { summaries: true, tags: true },
    });
  });

  it("says the workspace's enrichment settings; both on where the answer has none (a Leaf)", async () => {
    ctx = setUp((id) => ({
      found: true,
      relation: 'owner',
      ...(id === WS && { enrichment: { summaries: false, tags: true } }),
    }));
    expect((await ctx.gate.authorize(as(auth()), WS, 'fragments:write')).enrichment).toEqual({
      summaries: false,
      tags: true,
    });
    const other = 'c0ffee00-0000-4000-8000-0000000000aa';
    expect((await ctx.gate.authorize(as(auth()), other, 'fragments:write')).enrichment).toEqual({
      summaries: true,
      tags: true,
    });
  });

  it('answers the same 404 for a missing workspace, a private one of others and a malformed id, asking nothing for the last', async () => {
    ctx = setUp(() => ({ found: false }));
    const missing = await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:read'));
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const before = ctx.calls();
    const malformed = await refusal(ctx.gate.authorize(as(auth()), 'not-a-uuid', 'fragments:read'));
    expect(malformed.toJSON()).toEqual(missing.toJSON());
    expect(ctx.calls()).toBe(before);
  });

  it('hides a workspace behind the resource the caller named (hiddenAs)', async () => {
    ctx = setUp(() => ({ found: false }));
    const hidden = await refusal(
      ctx.gate.authorize(as(auth()), WS, 'fragments:read', {
        hiddenAs: () => new AppError({ status: 404, code: 'NOT_FOUND', message: 'Fragment not found' }),
      }),
    );
    expect(hidden.message).toBe('Fragment not found');
  });

  it('answers 401 without a caller and 403 for a viewer that writes or a token without the scope', async () => {
    ctx = setUp(() => ({ found: true, relation: 'viewer' }));
    expect(await refusal(ctx.gate.authorize(as(undefined), WS, 'fragments:read'))).toMatchObject({ status: 401 });
    expect(await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:write'))).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
    });
    expect(
      await refusal(ctx.gate.authorize(as(auth({ scopes: ['search:read'] })), WS, 'fragments:read')),
    ).toMatchObject({ status: 403 });
  });

  it('serves a workspace moving out of this plane read-only: reads, and what the move itself needs (duringMove)', async () => {
    ctx = setUp(() => ({ found: true, relation: 'owner', status: 'moving' }));
    expect(await ctx.gate.authorize(as(auth()), WS, 'fragments:read')).toMatchObject({ workspaceId: WS });
    expect(await ctx.gate.authorize(as(auth()), WS, 'chat:use')).toMatchObject({ workspaceId: WS });
    expect(await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:write'))).toMatchObject({
      status: 409,
      code: 'WORKSPACE_MOVING',
    });
    expect(await refusal(ctx.gate.authorize(as(auth()), WS, 'workspaces:write', { moveImport: true }))).toMatchObject({
      code: 'WORKSPACE_MOVING',
    });
    expect(await ctx.gate.authorize(as(auth()), WS, 'workspaces:write', { duringMove: true })).toMatchObject({
      moveImport: false,
    });
  });

  it("admits only a move's import to a workspace moving here from a Leaf; everything else is sent to the Leaf", async () => {
    const zone = { hostedZoneId: 'c0ffee00-0000-4000-8000-000000000001', endpointUrl: 'https://leaf.example.test' };
    ctx = setUp(() => ({ found: true, relation: 'owner', status: 'moving', moveImport: true, ...zone }));
    expect(await ctx.gate.authorize(as(auth()), WS, 'workspaces:write', { moveImport: true })).toMatchObject({
      moveImport: true,
    });
    // The import job's own writes carry the workspace in their in-process context.
    const job: RequestContext = { ...as(auth()), moveImportOf: WS };
    expect(await ctx.gate.authorize(job, WS, 'fragments:write')).toMatchObject({ moveImport: true });
    expect(await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:write'))).toMatchObject({
      code: 'HOSTED_ZONE_REQUIRED',
    });
    expect(await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:read'))).toMatchObject({
      code: 'HOSTED_ZONE_REQUIRED',
    });
    // Another workspace named in the job's context is not admitted by it.
    const other = { ...as(auth()), moveImportOf: '1e2d3c4b-5a69-4788-8899-aabbccddeeff' };
    expect(await refusal(ctx.gate.authorize(other, WS, 'fragments:write'))).toMatchObject({
      code: 'HOSTED_ZONE_REQUIRED',
    });
  });

  it('sends a Leaf-backed workspace to its Leaf: 409 HOSTED_ZONE_REQUIRED, only once access is granted', async () => {
    const zone = { hostedZoneId: 'c0ffee00-0000-4000-8000-000000000001', endpointUrl: 'https://leaf.example.test' };
    ctx = setUp(() => ({ found: true, relation: 'owner', ...zone }));
    const err = await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:read'));
    expect(err).toMatchObject({ status: 409, code: 'HOSTED_ZONE_REQUIRED', details: zone });
    await ctx.close();
    // A caller who may not see the workspace learns nothing of its zone.
    ctx = setUp(() => ({ found: false, ...zone }));
    expect(await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:read'))).toMatchObject({ status: 404 });
  });

  it('says whether the policy allows an action, with the relation, whatever the placement (relationAllowing)', async () => {
    const zone = { hostedZoneId: 'c0ffee00-0000-4000-8000-000000000001', endpointUrl: 'https://leaf.example.test' };
    ctx = setUp(() => ({ found: true, relation: 'viewer', ...zone }));
    expect(await ctx.gate.relationAllowing(as(auth()), WS, 'workspaces:read')).toBe('viewer');
    expect(await ctx.gate.relationAllowing(as(auth()), WS, 'workspaces:write')).toBeUndefined();
    expect(await ctx.gate.relationAllowing(as(undefined), WS, 'workspaces:read')).toBeUndefined();
    await ctx.close();
    ctx = setUp(() => ({ found: false }));
    expect(await ctx.gate.relationAllowing(as(auth()), WS, 'workspaces:read')).toBeUndefined();
  });

  it('reuses an answer per credential, and a broadcast drops it at once', async () => {
    let relation = 'owner';
    ctx = setUp(() => ({ found: true, relation }));
    await ctx.gate.authorize(as(auth()), WS, 'fragments:delete');
    await ctx.gate.authorize(as(auth()), WS, 'fragments:delete');
    expect(ctx.calls()).toBe(1);
    // Another token of the same user is another answer.
    await ctx.gate.authorize(as(auth({ credentialId: 'tok-2' })), WS, 'fragments:read');
    expect(ctx.calls()).toBe(2);
    relation = 'viewer';
    broadcast(ctx.workspaces, WorkspaceAccessChangedSchema, { workspaceIds: [WS] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await refusal(ctx.gate.authorize(as(auth()), WS, 'fragments:delete'))).toMatchObject({ status: 403 });
    expect(ctx.calls()).toBe(3);
  });

  it('caches nothing when the TTL is 0', async () => {
    ctx = setUp(() => ({ found: true, relation: 'owner' }), 0);
    await ctx.gate.authorize(as(auth()), WS, 'fragments:read');
    await ctx.gate.authorize(as(auth()), WS, 'fragments:read');
    expect(ctx.calls()).toBe(2);
  });

  describe('readableWorkspaces (a search across all of them)', () => {
    const ids = ['readable', 'viewer', 'hidden', 'archived', 'zoned'].map(
      (_, i) => `${i + 1}0000000-0000-4000-8000-000000000000`,
    );
    const [readable, viewer, hidden, archived, zoned] = ids;
    const zone = { hostedZoneId: 'c0ffee00-0000-4000-8000-000000000001', endpointUrl: 'https://leaf.example.test' };
    const listed: Listed[] = [
      { id: readable, name: 'Readable' },
      { id: viewer, name: 'Viewer' },
      { id: hidden, name: 'Gone since listed' },
      { id: archived, name: 'Archived', archivedAt: '2026-11-01T00:00:00.000Z' },
      { id: zoned, name: 'In a zone', ...zone },
    ];
    const relations: Record<string, Answer> = {
      [readable]: { found: true, relation: 'owner' },
      [viewer]: { found: true, relation: 'viewer' },
      [hidden]: { found: false },
    };
    const answer = (id: string): Answer => relations[id] ?? { found: true, relation: 'owner' };

    it('reads those the action is allowed in, leaves out archived and refused ones, and names those in a hosted zone', async () => {
      ctx = setUp(answer, 60_000, listed);
      expect(await ctx.gate.readableWorkspaces(as(auth()), 'search:read')).toEqual({
        workspaceIds: [readable, viewer],
        inHostedZones: [{ workspaceId: zoned, name: 'In a zone', ...zone }],
      });
      // A write: the viewer is refused (403), which only leaves that workspace out.
      expect((await ctx.gate.readableWorkspaces(as(auth()), 'fragments:write')).workspaceIds).toEqual([readable]);
      // A token whose scopes do not hold the action reads none.
      expect(
        (await ctx.gate.readableWorkspaces(as(auth({ scopes: ['fragments:read'] })), 'search:read')).workspaceIds,
      ).toEqual([]);
    });

    it('keeps the listed order over many workspaces, checked a few at a time', async () => {
      const many = Array.from({ length: 20 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      const hiddenOnes = new Set(many.filter((_, i) => i % 3 === 0));
      ctx = setUp(
        (id) => (hiddenOnes.has(id) ? { found: false } : { found: true, relation: 'viewer' }),
        60_000,
        many.map((id, i) => ({ id, name: `Workspace ${i}` })),
      );
      const { workspaceIds } = await ctx.gate.readableWorkspaces(as(auth()), 'search:read');
      expect(workspaceIds).toEqual(many.filter((id) => !hiddenOnes.has(id)));
      expect(ctx.calls()).toBe(20);
    });

    it('fails the whole answer when a check fails for another reason than a refusal', async () => {
      ctx = setUp(
        (id) => {
          if (id === viewer) throw new Error('workspaces component down');
          return answer(id);
        },
        60_000,
        listed,
      );
      const err = await refusal(ctx.gate.readableWorkspaces(as(auth()), 'search:read'));
      expect(err.status).toBeGreaterThanOrEqual(500);
    });
  });
});
