import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

const PLANS = {
  default: 'small',
  plans: [
    {
      id: 'small',
      name: 'Small',
      limits: { fragmentsPerWorkspace: 5, storageBytes: 2000, membersPerWorkspace: 2, workspacesPerUser: 2 },
    },
    { id: 'large', name: 'Large' },
    { id: 'metered', name: 'Metered', limits: { requestsPerMinute: 5 } },
  ],
};

/**
 * A plan with small limits, enforced where the work happens and reported by check-limits: the
 * workspace's creator's plan caps fragments, storage and members of the workspace (403
 * PLAN_LIMIT_REACHED naming the limit), workspaces per account, and requests per minute (429,
 * a rate). Owners are told at 80 % and 100 %, once each.
 */
describe('plan limits', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-plan-limits-');
  let platform: PlatformProcess;
  let api: ReturnType<typeof workspacesApi>;

  const limitOf = (answer: { status: number; body: any }) => ({
    status: answer.status,
    code: answer.body?.code,
    limit: answer.body?.limit,
  });
  /** One text file of `bytes` bytes through the multipart upload route. */
  const uploadFile = async (token: string, workspaceId: string, bytes: number, name: string) => {
    const form = new FormData();
    form.append('workspaceId', workspaceId);
    form.append('file', new Blob([Buffer.alloc(bytes, 'a')], { type: 'text/plain' }), name);
    const res = await fetch(`${platform.url}/api/files/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const limitNotices = async (token: string) =>
    (await api.ok(token, 'GET', '/api/notifications?limit=100', undefined, 200)).items
      .filter((n: any) => n.kind === 'workspace.limit')
      .map((n: any) => n.payload)
      .map((p: any) => ({ workspaceId: p.workspaceId, limit: p.limit, threshold: p.threshold, max: p.max }));

  /** A new account's workspace, with the id of its note type. */
  const noteWorkspace = async () => {
    const owner = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const ws = await api.createWorkspace(owner.token);
    const types = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    return { owner, ws, note: types.items.find((t: any) => t.key === 'note').id as string };
  };
  /** The workspace holds the plan's 5 fragments, and its owner was told 80 % and 100 %, once each. */
  const expectFullAndToldOnce = async (token: string, workspaceId: string) => {
    const listed = await api.ok(token, 'GET', `/api/memory-fragments?workspaceId=${workspaceId}`, undefined, 200);
    expect(listed.totalCount).toBe(5);
    // Once each; in either order (a race can write both notices in the same millisecond).
    const notices = (await limitNotices(token)).sort((a: any, b: any) => b.threshold - a.threshold);
    expect(notices).toEqual([
      { workspaceId, limit: 'fragmentsPerWorkspace', threshold: 100, max: 5 },
      { workspaceId, limit: 'fragmentsPerWorkspace', threshold: 80, max: 5 },
    ]);
  };

  beforeAll(async () => {
    // Plan changes show within a second instead of five (PLAN_CACHE_MS): the waits below are shorter.
    platform = await startEmbedded(dataDir, { ...admin, PLANS: JSON.stringify(PLANS), PLAN_CACHE_MS: '1000' });
    api = workspacesApi(platform.url);
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops fragment creation at the plan’s limit, check-limits agrees, and a larger plan lifts it', async () => {
    const owner = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const ws = await api.createWorkspace(owner.token);
    const types = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const note = types.items.find((t: any) => t.key === 'note').id;
    const create = (i: number) =>
      api.call(owner.token, 'POST', '/api/memory-fragments', {
        workspaceId: ws.id,
        fragmentTypeId: note,
        title: `Note ${i}`,
        content: `Content ${i}`,
        summary: 'given',
        tags: ['t'],
      });
    const limits = () => api.ok(owner.token, 'POST', '/api/memory-fragments/check-limits', { workspaceId: ws.id }, 200);

    expect(await limits()).toMatchObject({
      maxFragmentsPerWorkspace: 5,
      currentCount: 0,
      remaining: 5,
      canCreate: true,
      planId: 'small',
      limitedBy: 'plan',
    });
    for (let i = 0; i < 5; i++) expect((await create(i)).status).toBe(201);
    const refused = await create(5);
    expect(limitOf(refused)).toEqual({ status: 403, code: 'PLAN_LIMIT_REACHED', limit: 'fragmentsPerWorkspace' });
    expect(refused.body).toEqual({
      error: 'The plan small allows 5 fragments per workspace',
      code: 'PLAN_LIMIT_REACHED',
      limit: 'fragmentsPerWorkspace',
      max: 5,
      planId: 'small',
    });
    expect(await limits()).toMatchObject({ currentCount: 5, remaining: 0, canCreate: false });
    const listed = await api.ok(owner.token, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200);
    expect(listed.totalCount).toBe(5);

    // 4 of 5 is 80 %, 5 of 5 is 100 %: each told once, the refused create tells nothing more.
    expect(await limitNotices(owner.token)).toEqual([
      { workspaceId: ws.id, limit: 'fragmentsPerWorkspace', threshold: 100, max: 5 },
      { workspaceId: ws.id, limit: 'fragmentsPerWorkspace', threshold: 80, max: 5 },
    ]);

    await api.ok(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${owner.user.id}/plan`, { planId: 'large' }, 204);
    // Services keep an account's limits for PLAN_CACHE_MS (a second here).
    await new Promise((r) => setTimeout(r, 1500));
    expect(await limits()).toMatchObject({ planId: null, limitedBy: 'deployment', canCreate: true });
    expect((await create(6)).status).toBe(201);
  }, 60_000);

  it('lets exactly the plan’s number through when creates and a bulk write race for the last places', async () => {
    const { owner, ws, note } = await noteWorkspace();
    const item = (i: number) => ({ fragmentTypeId: note, title: `Race ${i}`, content: `Content ${i}`, summary: 's' });
    const [bulk, ...singles] = await Promise.all([
      api.call(owner.token, 'POST', '/api/memory-fragments/bulk', {
        workspaceId: ws.id,
        items: [item(100), item(101)],
      }),
      ...Array.from({ length: 10 }, (_, i) =>
        api.call(owner.token, 'POST', '/api/memory-fragments', { workspaceId: ws.id, ...item(i) }),
      ),
    ]);
    const created =
      singles.filter((r) => r.status === 201).length +
      bulk!.body.results.filter((r: any) => r.status === 'created').length;
    expect(created).toBe(5);
    expect(singles.every((r) => r.status === 201 || limitOf(r).code === 'PLAN_LIMIT_REACHED')).toBe(true);
    // Each create near the limit was counted with those before it.
    await expectFullAndToldOnce(owner.token, ws.id);
  }, 60_000);

  it('stops a bulk write at the plan’s limit item by item, and tells each threshold once', async () => {
    const { owner, ws, note } = await noteWorkspace();
    const item = (i: number) => ({ fragmentTypeId: note, title: `Note ${i}`, content: `Content ${i}`, summary: 's' });
    const answer = await api.ok(
      owner.token,
      'POST',
      '/api/memory-fragments/bulk',
      // 7 items, one of them invalid: the first 5 valid ones fill the plan, the 6th valid one is refused.
      { workspaceId: ws.id, items: [item(0), item(1), { ...item(2), title: ' ' }, item(3), item(4), item(5), item(6)] },
      200,
    );
    expect(answer.results.map((r: any) => r.error?.code ?? r.status)).toEqual([
      'created',
      'created',
      'VALIDATION_FAILED',
      'created',
      'created',
      'created',
      'PLAN_LIMIT_REACHED',
    ]);
    expect(answer.results[6].error).toMatchObject({
      status: 403,
      message: 'The plan small allows 5 fragments per workspace',
    });
    // The write passed 80 % and reached 100 % at once: both told, each once.
    await expectFullAndToldOnce(owner.token, ws.id);
  }, 60_000);

  it('tells each of an owner’s workspaces of its own thresholds, not only the first to reach them', async () => {
    const { owner, ws, note } = await noteWorkspace();
    const second = await api.createWorkspace(owner.token);
    await api.ok(
      owner.token,
      'POST',
      '/api/memory-fragments/bulk',
      {
        workspaceId: ws.id,
        items: [0, 1, 2, 3, 4].map((i) => ({ fragmentTypeId: note, title: `N${i}`, content: `C${i}`, summary: 's' })),
      },
      200,
    );
    // The second workspace's note type has its own id.
    const types = await api.ok(owner.token, 'GET', `/api/workspaces/${second.id}/fragment-types`, undefined, 200);
    const secondNote = types.items.find((t: any) => t.key === 'note').id;
    await api.ok(
      owner.token,
      'POST',
      '/api/memory-fragments/bulk',
      {
        workspaceId: second.id,
        items: [0, 1, 2, 3, 4].map((i) => ({
          fragmentTypeId: secondNote,
          title: `N${i}`,
          content: `C${i}`,
          summary: 's',
        })),
      },
      200,
    );
    const told = (await limitNotices(owner.token)).map((n: any) => `${n.workspaceId}@${n.threshold}`).sort();
    expect(told).toEqual([`${second.id}@100`, `${second.id}@80`, `${ws.id}@100`, `${ws.id}@80`].sort());
  }, 60_000);

  it('counts the workspace against its creator’s plan, whoever adds to it', async () => {
    const owner = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const member = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const unlimited = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    await api.ok(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${unlimited.user.id}/plan`, { planId: 'large' }, 204);
    const ws = await api.createWorkspace(owner.token);
    await api.addMember(owner.token, ws.id, { auth: member.token, ...member.user }, 'collaborator');

    // Two members of two seats: a third invitation is refused, and nothing was written.
    const third = await api.call(owner.token, 'POST', `/api/workspaces/${ws.id}/members`, {
      email: unlimited.user.email,
      role: 'viewer',
    });
    expect(limitOf(third)).toEqual({ status: 403, code: 'PLAN_LIMIT_REACHED', limit: 'membersPerWorkspace' });
    const invitations = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}/invitations`, undefined, 200);
    expect(invitations.items).toEqual([]);
    expect(await limitNotices(owner.token)).toEqual([
      { workspaceId: ws.id, limit: 'membersPerWorkspace', threshold: 100, max: 2 },
    ]);

    // The member's own plan does not matter: the fragments count against the creator's plan.
    const types = await api.ok(member.token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const note = types.items.find((t: any) => t.key === 'note').id;
    await api.ok(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${member.user.id}/plan`, { planId: 'large' }, 204);
    const limits = await api.ok(
      member.token,
      'POST',
      '/api/memory-fragments/check-limits',
      { workspaceId: ws.id },
      200,
    );
    expect(limits).toMatchObject({ planId: 'small', maxFragmentsPerWorkspace: 5 });
    const created = await api.call(member.token, 'POST', '/api/memory-fragments', {
      workspaceId: ws.id,
      fragmentTypeId: note,
      title: 'By the member',
      content: 'x',
      summary: 's',
      tags: ['t'],
    });
    expect(created.status).toBe(201);
  }, 60_000);

  it('limits the workspaces an account creates', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    expect((await api.ok(person.token, 'GET', '/api/workspaces', undefined, 200)).items).toEqual([]);
    await api.createWorkspace(person.token);
    // Three at the same instant for the one place left: exactly one gets it.
    const raced = await Promise.all(
      [1, 2, 3].map((i) => api.call(person.token, 'POST', '/api/workspaces', { name: `Race ${i}` })),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 403, 403]);
    expect((await api.ok(person.token, 'GET', '/api/workspaces', undefined, 200)).items).toHaveLength(2);
    const refused = await api.call(person.token, 'POST', '/api/workspaces', { name: 'One too many' });
    expect(limitOf(refused)).toEqual({ status: 403, code: 'PLAN_LIMIT_REACHED', limit: 'workspacesPerUser' });
    expect(refused.body).toMatchObject({ limit: 'workspacesPerUser', max: 2, planId: 'small' });
  });

  it('caps the workspace’s file storage at the plan’s bytes', async () => {
    const owner = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const ws = await api.createWorkspace(owner.token);
    const upload = (bytes: number) => uploadFile(owner.token, ws.id, bytes, `f${bytes}.txt`);
    expect((await upload(1700)).status).toBe(201);
    expect(await limitNotices(owner.token)).toEqual([
      { workspaceId: ws.id, limit: 'storageBytes', threshold: 80, max: 2000 },
    ]);
    // 300 bytes are left: a larger file is refused while it streams, and nothing is kept (else
    // the 300 that follow would not fit).
    const over = await upload(400);
    expect(limitOf(over)).toEqual({ status: 403, code: 'PLAN_LIMIT_REACHED', limit: 'storageBytes' });
    // The one refusal's shape (limit, max, planId), plus what was left.
    expect(over.body).toMatchObject({ limit: 'storageBytes', max: 2000, planId: 'small', left: 300 });
    // The byte proxy of embed parents stores through the same upload.
    const proxied = await api.call(owner.token, 'POST', '/api/workspace-files/bytes', {
      workspaceId: ws.id,
      fileName: 'proxied.txt',
      mimeType: 'text/plain',
      base64: Buffer.alloc(400, 'a').toString('base64'),
    });
    expect(proxied.status, JSON.stringify(proxied.body)).toBe(403);
    expect(proxied.body).toMatchObject({
      code: 'PLAN_LIMIT_REACHED',
      limit: 'storageBytes',
      max: 2000,
      planId: 'small',
    });
    expect((await upload(300)).status).toBe(201);
    expect(limitOf(await upload(1))).toEqual({ status: 403, code: 'PLAN_LIMIT_REACHED', limit: 'storageBytes' });
    expect(await limitNotices(owner.token)).toEqual([
      { workspaceId: ws.id, limit: 'storageBytes', threshold: 100, max: 2000 },
      { workspaceId: ws.id, limit: 'storageBytes', threshold: 80, max: 2000 },
    ]);
  }, 60_000);

  it('uploads racing for the last bytes: exactly those that fit are kept, and a delete frees its bytes', async () => {
    const owner = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const ws = await api.createWorkspace(owner.token);
    const upload = (bytes: number, name: string) => uploadFile(owner.token, ws.id, bytes, name);
    // Each saw 2,000 bytes free when it began; three of 600 fit, a fourth would not.
    const raced = await Promise.all(Array.from({ length: 16 }, (_, i) => upload(600, `race-${i}.txt`)));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 201, ...Array(13).fill(403)]);
    for (const refused of raced.filter((r) => r.status === 403))
      expect(limitOf(refused)).toEqual({ status: 403, code: 'PLAN_LIMIT_REACHED', limit: 'storageBytes' });
    for (const kept of raced.filter((r) => r.status === 201))
      expect((await api.ok(owner.token, 'GET', `/api/files/${kept.body.file.id}`, undefined, 200)).file.sizeBytes).toBe(
        600,
      );
    expect(limitOf(await upload(600, 'one-more.txt'))).toMatchObject({ status: 403, limit: 'storageBytes' });
    // Deleting one gives its 600 bytes back.
    const kept = raced.find((r) => r.status === 201)!.body.file.id;
    await api.ok(owner.token, 'DELETE', `/api/files/${kept}`, undefined, 200);
    expect((await upload(600, 'after-delete.txt')).status).toBe(201);
  }, 60_000);

  it('limits an account’s requests per minute with 429, over all its credentials', async () => {
    const metered = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const other = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    await api.ok(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${metered.user.id}/plan`, { planId: 'metered' }, 204);
    // The gateway keeps an account's limits for PLAN_CACHE_MS (it saw the plan when the token was made).
    await new Promise((r) => setTimeout(r, 1500));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api.call(metered.token, 'GET', '/api/profile')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await fetch(`${platform.url}/api/profile`, {
      headers: { authorization: `Bearer ${metered.token}` },
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.call(other.token, 'GET', '/api/profile')).status).toBe(200);
  }, 30_000);
});
