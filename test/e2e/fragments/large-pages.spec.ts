import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startEmbedded, tempDir } from '../../support/processes.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

/**
 * Issue 15, item 8: every documented limit works at its maximum, in both run modes. A page of
 * `limit=500` (the documented maximum, docs/fragments.md) of long fragments is several MiB, and
 * a create at every field's maximum is bigger than one NATS message (1 MiB): the transport
 * must carry both, whatever its per-message limit.
 */

const LIMIT_MAX = 500;
const CONCURRENCY = 25;
/** Rate limits out of the way: the suite sends hundreds of requests from one address. */
const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
  // untilAdminTokenWorks polls with a token that may still be refused.
  AUTH_FAILURES_PER_ADDRESS: '1000000',
  AUTH_FAILURES_PER_CREDENTIAL: '1000000',
};

interface Platform {
  url: string;
  adminToken: string;
  stop(): Promise<void>;
}

/** ~3.5 KB per fragment (some of it multi-byte), so 500 of them make a page of about 2 MB. */
const titleOf = (i: number) => `Fragment ${i}: `.padEnd(480, 'a long title, ') + ' ✓';
const contentOf = (i: number) =>
  `# Note ${i}\n\n${'Long notes make long pages — ünïcødé included. '.repeat(60)}\n\nend of ${i}`;

async function inBatches<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += CONCURRENCY)
    out.push(...(await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count - i) }, (_, j) => make(i + j)))));
  return out;
}

function largePages(start: () => Promise<Platform>): void {
  let platform: Platform;
  let api: ReturnType<typeof workspacesApi>;
  let auth: string;

  beforeAll(async () => {
    platform = await start();
    api = workspacesApi(platform.url);
    ({ token: auth } = await userWithToken(platform.url, platform.adminToken));
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  }, 60_000);

  async function workspace(): Promise<{ id: string; noteTypeId: string }> {
    const ws = await api.createWorkspace(auth);
    const types = await api.ok(auth, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    return { id: ws.id, noteTypeId: types.items.find((t: { key: string }) => t.key === 'note').id };
  }

  it(`lists ${LIMIT_MAX} long fragments in one page of several MiB`, async () => {
    const ws = await workspace();
    const created = await inBatches(LIMIT_MAX, async (i) => {
      // A supplied summary and tags skip the AI steps: only the listing is under test.
      const body = {
        workspaceId: ws.id,
        fragmentTypeId: ws.noteTypeId,
        title: titleOf(i),
        content: contentOf(i),
        summary: `summary ${i}`,
        tags: ['bulk'],
      };
      const { fragment } = await api.ok(auth, 'POST', '/api/memory-fragments', body, 201);
      return { id: fragment.id as string, i };
    });

    const page = await api.call(auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}&limit=${LIMIT_MAX}&offset=0`);
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    expect(Buffer.byteLength(page.text)).toBeGreaterThan(1.5 * 1024 * 1024);
    expect(page.body).toMatchObject({
      success: true,
      count: LIMIT_MAX,
      totalCount: LIMIT_MAX,
      limit: LIMIT_MAX,
      offset: 0,
    });
    expect(page.body.items).toHaveLength(LIMIT_MAX);
    const byId = new Map<string, { title: string; content: string }>(
      page.body.items.map((f: { id: string; title: string; content: string }) => [f.id, f]),
    );
    for (const { id, i } of created) {
      expect(byId.get(id)?.title, id).toBe(titleOf(i));
      expect(byId.get(id)?.content, id).toBe(contentOf(i));
    }
  }, 90_000);

  it('creates and reads back a fragment at every field maximum, bigger than one NATS message', async () => {
    const ws = await workspace();
    const emoji = (n: number, seed: number) =>
      Array.from({ length: n }, (_, k) => String.fromCodePoint(0x1f600 + ((k + seed) % 64))).join('');
    const content = `# At the limit\n\n${'0123456789abcdef\n'.repeat(58_000)}`.padEnd(1_000_000, 'z');
    const body = {
      workspaceId: ws.id,
      fragmentTypeId: ws.noteTypeId,
      title: emoji(500, 0),
      content,
      summary: emoji(10_000, 1),
      tags: Array.from({ length: 50 }, (_, t) => `${t}`.padStart(2, '0') + emoji(98, t)),
      key: emoji(500, 2),
    };
    // 4-byte characters in every text field: about 1.06 MB of UTF-8 on the wire each way.
    expect(Buffer.byteLength(content)).toBe(1_000_000);
    const { fragment } = await api.ok(auth, 'POST', '/api/memory-fragments', body, 201);
    expect(fragment.content).toBe(content);

    const read = await api.ok(auth, 'GET', `/api/memory-fragments/${fragment.id}`, undefined, 200);
    expect(read.fragment).toMatchObject({ title: body.title, content, summary: body.summary, key: body.key });
    expect([...read.fragment.tags].sort()).toEqual([...body.tags].sort());
  }, 60_000);
}

describe('large pages and messages (embedded)', () => {
  largePages(async () => {
    const dataDir = tempDir('kw-large-pages-');
    const admin = adminEnv();
    const app = await startEmbedded(dataDir, { ...admin, ...UNLIMITED });
    return {
      url: app.url,
      adminToken: admin.ADMIN_TOKEN,
      async stop() {
        await app.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  });
});

describe('pages bounded by bytes (embedded)', () => {
  const dataDir = tempDir('kw-page-bytes-');
  const admin = adminEnv();
  let url: string;
  let stop: () => Promise<unknown>;

  beforeAll(async () => {
    // A small budget stands in for 16 MiB: 500 fragments at the content maximum would be 500 MB.
    const app = await startEmbedded(dataDir, { ...admin, ...UNLIMITED, LIST_PAGE_MAX_BYTES: '200000' });
    url = app.url;
    stop = () => app.stop();
  });
  afterAll(async () => {
    await stop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends a page early at LIST_PAGE_MAX_BYTES, and paging by count visits every fragment once', async () => {
    const api = workspacesApi(url);
    const { token } = await userWithToken(url, admin.ADMIN_TOKEN);
    const ws = await api.createWorkspace(token);
    const types = await api.ok(token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const noteTypeId = types.items.find((t: { key: string }) => t.key === 'note').id;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const body = {
        workspaceId: ws.id,
        fragmentTypeId: noteTypeId,
        title: `big ${i}`,
        content: `${i}`.padEnd(60_000, '.'),
        summary: 's',
        tags: ['t'],
      };
      ids.push((await api.ok(token, 'POST', '/api/memory-fragments', body, 201)).fragment.id);
    }
    const first = await api.ok(token, 'GET', `/api/memory-fragments?workspaceId=${ws.id}&limit=10`, undefined, 200);
    // Three fragments of ~60 KB fit in 200,000 bytes, the fourth would not.
    expect(first).toMatchObject({ count: 3, limit: 10, offset: 0, totalCount: 10 });
    const seen: string[] = [];
    for (let offset = 0; offset < 10;) {
      const page = await api.ok(
        token,
        'GET',
        `/api/memory-fragments?workspaceId=${ws.id}&limit=10&offset=${offset}`,
        undefined,
        200,
      );
      expect(page.count).toBeGreaterThan(0);
      seen.push(...page.items.map((f: { id: string }) => f.id));
      offset += page.count;
    }
    expect(seen).toEqual(ids);
    // One fragment bigger than the budget still comes, alone.
    const huge = {
      workspaceId: ws.id,
      fragmentTypeId: noteTypeId,
      title: 'huge',
      content: 'h'.repeat(300_000),
      summary: 's',
      tags: ['t'],
    };
    await api.ok(token, 'POST', '/api/memory-fragments', huge, 201);
    const last = await api.ok(
      token,
      'GET',
      `/api/memory-fragments?workspaceId=${ws.id}&limit=5&offset=10`,
      undefined,
      200,
    );
    expect(last).toMatchObject({ count: 1, totalCount: 11 });
  }, 60_000);
});

/** Healthy is not yet bootstrapped: the first admin (and its token) may land a moment later. */
async function untilAdminTokenWorks(url: string, token: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}/api/auth/validate-token`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the admin token is still refused (${res.status}): ${await res.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describeWith(['postgres', 'nats'], 'large pages and messages (distributed, real NATS and Postgres)', () => {
  largePages(async () => {
    const db = await createTestDatabase('kw_large_pages');
    const admin = adminEnv();
    let platform: DistributedPlatform | undefined;
    try {
      platform = await startDistributed(
        { DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL!, ...admin, ...UNLIMITED },
        90_000,
      );
      await untilAdminTokenWorks(platform.url, admin.ADMIN_TOKEN);
    } catch (err) {
      await platform?.stop();
      await db.drop();
      throw err;
    }
    const started = platform;
    return {
      url: started.url,
      adminToken: admin.ADMIN_TOKEN,
      async stop() {
        expect(await started.stop()).toBe(0);
        await db.drop();
      },
    };
  });
});
