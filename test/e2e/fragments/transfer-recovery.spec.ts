import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { poll } from '../../support/hosted-zones.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
};

/**
 * An import job whose process dies (docs/portable-workspaces.md): two platform processes share
 * one database, as two replicas of the fragments component do. The import runs in the first, held
 * half way by a row lock the test takes (the target workspace's fragment types, FOR UPDATE: the
 * import's fragment inserts check their type's key and wait on it). The second one restarting must
 * not fail the first one's live job; the first one killed (SIGKILL: no shutdown hook runs), the
 * second one must fail its job with the reason once its lease has run out, so the workspace takes
 * imports (and a move's purge) again, without any restart.
 */
describeWith(['postgres'], 'an import job whose process died', () => {
  const admin = adminEnv();
  const dirs: string[] = [];
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: pg.Client;
  let first: PlatformProcess;
  let second: PlatformProcess;
  let owner: { token: string };
  const env = () => ({
    DATABASE_URL: db.url,
    ...admin,
    ...UNLIMITED,
    TRANSFER_LEASE_MS: '3000',
  });
  const dir = () => {
    const d = tempDir('kw-transfer-lease-');
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    db = await createTestDatabase('kw_transfer_lease');
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    first = await startEmbedded(dir(), env());
    second = await startEmbedded(dir(), env());
    owner = await userWithToken(first.url, admin.ADMIN_TOKEN);
  }, 180_000);

  afterAll(async () => {
    await first?.stop('SIGKILL');
    await second?.stop();
    await sql?.end();
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 60_000);

  it('is failed with its reason once its lease ran out, and the workspace takes imports again', async () => {
    const api = (p: PlatformProcess) => workspacesApi(p.url);
    const source = await api(first).createWorkspace(owner.token, { name: 'Source' });
    const types = (
      await api(first).ok(owner.token, 'GET', `/api/workspaces/${source.id}/fragment-types`, undefined, 200)
    ).items;
    const note = types.find((t: any) => t.key === 'note');
    const items = Array.from({ length: 20 }, (_, i) => ({
      fragmentTypeId: note.id,
      title: `Note ${i}`,
      content: `n${i}`,
    }));
    const bulk = await api(first).ok(
      owner.token,
      'POST',
      '/api/memory-fragments/bulk',
      { workspaceId: source.id, items },
      200,
    );
    expect(bulk.created).toBe(20);
    const exported = (await api(first).ok(owner.token, 'POST', `/api/workspaces/${source.id}/exports`, undefined, 202))
      .transfer;
    await poll('the export done', async () => {
      const { transfer } = await api(first).ok(
        owner.token,
        'GET',
        `/api/workspaces/${source.id}/exports/${exported.id}`,
        undefined,
        200,
      );
      return transfer.status === 'done';
    });
    const archive = Buffer.from(
      await (
        await fetch(`${first.url}/api/workspaces/${source.id}/exports/${exported.id}/download`, {
          headers: { authorization: `Bearer ${owner.token}` },
        })
      ).arrayBuffer(),
    );
    const target = await api(first).createWorkspace(owner.token, { name: 'Target' });
    // Its default types are there once listed: the rows the test holds.
    await api(first).ok(owner.token, 'GET', `/api/workspaces/${target.id}/fragment-types`, undefined, 200);
    const postImport = (p: PlatformProcess) =>
      fetch(`${p.url}/api/workspaces/${target.id}/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/zip' },
        body: archive,
      });
    const importJob = async (p: PlatformProcess, id: string) =>
      (await api(p).ok(owner.token, 'GET', `/api/workspaces/${target.id}/imports/${id}`, undefined, 200)).transfer;

    // The import held half way, in the first process.
    const holder = new pg.Client({ connectionString: db.url });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    const locked = await holder.query('SELECT 1 FROM data.fragment_types WHERE workspace_id = $1 FOR UPDATE', [
      target.id,
    ]);
    expect(locked.rowCount).toBeGreaterThan(0);
    const started = await postImport(first);
    expect(started.status).toBe(202);
    const jobId = ((await started.json()) as any).transfer.id as string;
    const held = await poll('the import waiting on the held row', async () => {
      const job = await importJob(first, jobId);
      const { rows } = await sql.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return (job.status !== 'processing' || rows[0].n >= 1) && job;
    });
    expect(held.status, JSON.stringify(held)).toBe('processing');

    // Another process starting (a replica restarted, a rolling deploy) leaves the live job alone.
    await second.stop();
    second = await startEmbedded(dir(), env());
    expect((await importJob(second, jobId)).status).toBe('processing');
    const refused = await postImport(second);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as any).transferId).toBe(jobId);

    // The process running it dies: the job is failed, with why, by the process still running.
    await first.stop('SIGKILL');
    const failed = await poll(
      'the orphaned import failed',
      async () => {
        const job = await importJob(second, jobId);
        return job.status !== 'processing' && job;
      },
      60_000,
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/interrupted/);
    await holder.query('ROLLBACK');
    await holder.end();

    // The workspace takes an import again, and it completes.
    const again = await postImport(second);
    expect(again.status).toBe(202);
    const againId = ((await again.json()) as any).transfer.id as string;
    const done = await poll('the new import ended', async () => {
      const job = await importJob(second, againId);
      return job.status !== 'processing' && job;
    });
    expect(done.status).toBe('done');
    const listed = await api(second).ok(
      owner.token,
      'GET',
      `/api/memory-fragments?workspaceId=${target.id}&limit=100`,
      undefined,
      200,
    );
    expect(listed.items).toHaveLength(20);
  }, 300_000);
});
