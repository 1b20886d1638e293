import { Webhook } from 'standardwebhooks';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';
import { startReceiver, TEST_CA_FILE } from './receiver.js';

const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
};
const TOTAL = 1000;
const PARALLEL = 16;
const KILL_AFTER = 400;

describeWith(['postgres', 'nats'], 'webhooks (distributed: outbox -> JetStream -> fan-out -> delivery worker)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sql: pg.Client;
  const admin = adminEnv();

  beforeAll(async () => {
    db = await createTestDatabase('kw_hooks');
    receiver = await startReceiver();
    platform = await startDistributed({
      DATABASE_URL: db.url,
      NATS_URL: TEST_NATS_URL!,
      ...admin,
      ...UNLIMITED,
      SERVICE_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'info',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOKS_CA_FILE: TEST_CA_FILE,
      WEBHOOKS_RETRY_SCHEDULE: '500ms,1s,2s,2s,2s,2s,2s,2s',
    });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 180_000);

  afterAll(async () => {
    await sql?.end();
    if (platform) expect(await platform.stop()).toBe(0);
    await receiver?.close();
    await db?.drop();
  }, 60_000);

  it('delivers every event of 1,000 creates at least once, none lost, with the delivery worker SIGKILLed in the middle', async () => {
    const api = workspacesApi(platform.url);
    const { token: auth } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const ws = await api.createWorkspace(auth, {});
    const types = await api.ok(auth, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const noteTypeId = types.items.find((t: any) => t.key === 'note').id;
    const { secret } = await api.ok(
      auth,
      'POST',
      `/api/workspaces/${ws.id}/webhooks`,
      { name: 'burst', url: receiver.url('/burst'), events: ['fragment.created'] },
      201,
    );

    let next = 0;
    let created = 0;
    let killed = false;
    const createOne = async (i: number) => {
      for (let attempt = 0; ; attempt++) {
        const res = await api.call(auth, 'POST', '/api/memory-fragments', {
          workspaceId: ws.id,
          fragmentTypeId: noteTypeId,
          title: `Burst ${i}`,
          content: `Event ${i}`,
          key: `burst-${i}`,
        });
        if (res.status === 201 || res.status === 409) return;
        if (![502, 503, 504].includes(res.status) || attempt > 200)
          throw new Error(`create ${i}: ${res.status} ${res.text}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < TOTAL) {
          await createOne(next++);
          if (++created === KILL_AFTER && !killed) {
            killed = true;
            process.kill(platform.pidOf('webhooks')!, 'SIGKILL');
          }
        }
      }),
    );
    expect(killed).toBe(true);

    // Deliveries claimed by the killed worker come back when their lease ends (30 s).
    const titles = () => new Set(receiver.at('/burst').map((r) => JSON.parse(r.body).data.fragment.title as string));
    await expect.poll(() => titles().size, { timeout: 180_000, interval: 1_000 }).toBe(TOTAL);

    const ids = receiver.at('/burst').map((r) => r.headers['webhook-id'] as string);
    const unique = new Set(ids);
    // One webhook-id per event: a receiver deduplicating by it applies each event once.
    expect(unique.size).toBe(TOTAL);
    for (const r of receiver.at('/burst'))
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    // The history agrees: one delivery per event, each succeeded (some after a second attempt).
    expect(await waitSucceeded(sql)).toBe(TOTAL);
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM data.webhook_deliveries WHERE test = false`);
    expect(rows[0].n).toBe(TOTAL);
  }, 420_000);
});

async function waitSucceeded(sql: pg.Client): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await sql.query(
      `SELECT count(*)::int AS n FROM data.webhook_deliveries WHERE test = false AND status = 'succeeded'`,
    );
    if (rows[0].n >= TOTAL || Date.now() > deadline) return rows[0].n;
    await new Promise((r) => setTimeout(r, 500));
  }
}
