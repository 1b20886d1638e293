import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chunkText } from '../../../libs/platform/ai/src/chunking.js';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';
import { untilPublished } from './enrichment-fixture.js';

const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
};
const TOTAL = 1000;
const PARALLEL = 16;
const KILL_AFTER = 300;

/** Every third note is long enough to need several chunks. */
function contentOf(i: number): string {
  const base = `Note ${i} by Ada Lovelace about TypeScript and PostgreSQL. #batch`;
  return i % 3 === 0
    ? `${base}\n\n${Array.from({ length: 6 }, (_, p) => `## Part ${p}\n\n${'Engines compute numbers and notes. '.repeat(15)}`).join('\n\n')}`
    : base;
}

describeWith(
  ['postgres', 'nats'],
  'enrichment (distributed: outbox relay -> JetStream -> worker, real Postgres)',
  () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let platform: DistributedPlatform;
    let sql: pg.Client;
    let auth: string;
    let workspaceId: string;
    let noteTypeId: string;
    const api = () => workspacesApi(platform.url);

    beforeAll(async () => {
      db = await createTestDatabase('kw_enrich');
      const admin = adminEnv();
      platform = await startDistributed({
        DATABASE_URL: db.url,
        NATS_URL: TEST_NATS_URL!,
        ...admin,
        ...UNLIMITED,
        SERVICE_TIMEOUT_MS: '5000',
        LOG_LEVEL: 'info',
      });
      sql = new pg.Client({ connectionString: db.url });
      await sql.connect();
      ({ token: auth } = await userWithToken(platform.url, admin.ADMIN_TOKEN));
      const ws = await api().createWorkspace(auth, {});
      workspaceId = ws.id;
      const types = await api().ok(auth, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
      noteTypeId = types.items.find((t: any) => t.key === 'note').id;
    }, 180_000);

    afterAll(async () => {
      await sql?.end();
      if (platform) expect(await platform.stop()).toBe(0);
      await db?.drop();
    }, 60_000);

    it('answers processing, then the fragment is published with every step done', async () => {
      const { fragment } = await api().ok(
        auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId, fragmentTypeId: noteTypeId, title: 'One', content: contentOf(0) },
        201,
      );
      expect(fragment.status).toBe('processing');
      const done = await untilPublished(() => api().call(auth, 'GET', `/api/memory-fragments/${fragment.id}`));
      for (const step of ['summary', 'tags', 'embedding', 'graph']) expect(done.enrichment[step].state).toBe('done');
      const { rows } = await sql.query('SELECT count(*)::int AS n FROM data.fragment_chunks WHERE fragment_id = $1', [
        fragment.id,
      ]);
      expect(rows[0].n).toBe(chunkText(`One\n\n${contentOf(0)}`).length);
    }, 60_000);

    it('survives a SIGKILL of the fragments process in the middle of 1,000 creates: each step to effect once', async () => {
      let next = 0;
      let created = 0;
      let killed = false;
      let killedPid = 0;
      /** Creates note i, retrying while the fragments process is down; the key tells a retry of a committed create (409). */
      const createOne = async (i: number) => {
        for (let attempt = 0; ; attempt++) {
          const res = await api().call(auth, 'POST', '/api/memory-fragments', {
            workspaceId,
            fragmentTypeId: noteTypeId,
            title: `Batch ${i}`,
            content: contentOf(i),
            key: `batch-${i}`,
          });
          if (res.status === 201 || res.status === 409) return;
          if (![502, 503, 504].includes(res.status) || attempt > 200)
            throw new Error(`create ${i}: ${res.status} ${JSON.stringify(res.body)}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (next < TOTAL) {
            const i = next++;
            await createOne(i);
            if (++created === KILL_AFTER && !killed) {
              killed = true;
              killedPid = platform.pidOf('fragments')!;
              process.kill(killedPid, 'SIGKILL');
            }
          }
        }),
      );
      expect(killed).toBe(true);

      await expect
        .poll(
          async () =>
            (
              await sql.query(
                `SELECT count(*)::int AS n FROM data.fragments WHERE key LIKE 'batch-%' AND status = 'published'`,
              )
            ).rows[0].n,
          { timeout: 240_000, interval: 1_000 },
        )
        .toBe(TOTAL);

      const fragments = (
        await sql.query(
          `SELECT id::text, title, content, tags, enrichment, version FROM data.fragments WHERE key LIKE 'batch-%'`,
        )
      ).rows;
      expect(fragments).toHaveLength(TOTAL);
      const chunks = new Map<string, { n: number; maxOrdinal: number }>(
        (
          await sql.query(
            `SELECT fragment_id::text AS id, count(*)::int AS n, max(ordinal)::int AS max FROM data.fragment_chunks GROUP BY fragment_id`,
          )
        ).rows.map((r) => [r.id, { n: r.n, maxOrdinal: r.max }]),
      );
      for (const f of fragments) {
        for (const step of ['summary', 'tags', 'embedding', 'graph'])
          expect(f.enrichment[step]?.state, `${f.title} ${step}`).toBe('done');
        const expected = chunkText(`${f.title}\n\n${f.content}`).length;
        expect(chunks.get(f.id), f.title).toEqual({ n: expected, maxOrdinal: expected - 1 });
        expect(new Set(f.tags).size, f.title).toBe(f.tags.length);
      }
      // Every event of the batch relayed, and handled once by the enrichment consumer.
      const events = await sql.query(
        `SELECT o.id, o.published_at, (SELECT count(*)::int FROM data.processed_events p WHERE p.consumer = 'fragments-enrichment' AND p.event_id = o.id) AS handled
       FROM data.outbox o JOIN data.fragments f ON f.id::text = o.aggregate_id WHERE f.key LIKE 'batch-%' AND o.event_type = 'fragment.created'`,
      );
      expect(events.rows).toHaveLength(TOTAL);
      for (const e of events.rows) {
        expect(e.published_at).not.toBeNull();
        expect(e.handled).toBe(1);
      }
      // One mention per (entity, fragment) and one relation per (source, target, kind, fragment): no duplicates.
      const dupMentions = await sql.query(
        `SELECT entity_id, fragment_id FROM data.graph_mentions GROUP BY 1, 2 HAVING count(*) > 1`,
      );
      expect(dupMentions.rows).toEqual([]);
      const entities = await sql.query(
        `SELECT kind, normalized_name, count(*)::int AS n FROM data.graph_entities WHERE workspace_id = $1 GROUP BY 1, 2 HAVING count(*) > 1`,
        [workspaceId],
      );
      expect(entities.rows).toEqual([]);
      const mentions = await sql.query(
        `SELECT count(*)::int AS n FROM data.graph_mentions m JOIN data.fragments f ON f.id = m.fragment_id WHERE f.key LIKE 'batch-%'`,
      );
      // Ada Lovelace, TypeScript, PostgreSQL, #batch in every note.
      expect(mentions.rows[0].n).toBe(TOTAL * 4);
      // The killed process was replaced by a new one, whose worker took over.
      expect(platform.pidOf('fragments')).not.toBe(killedPid);
      expect(platform.logs.filter((l) => l.msg === 'enrichment worker started').length).toBeGreaterThanOrEqual(2);
    }, 600_000);
  },
);
