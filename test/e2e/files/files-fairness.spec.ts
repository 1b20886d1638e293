import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSlowPdf } from '../../fixtures/files/make-fixtures.mjs';
import type { Person } from '../fragments/fragments-fixture.js';
import { fixture, startFilesPlatform } from './files-fixture.js';

/**
 * One workspace's backlog of slow files does not hold back another workspace's file: with one
 * processing slot and a short extraction timeout, workspace A queues PDFs that each run into the
 * timeout; workspace B's small text file, uploaded after them, is processed before A's queue
 * drains (the next free slot goes to B), and A's files still all end as before.
 */
const QUOTA = 1024 * 1024;

describe('files: processing is fair between workspaces', () => {
  let p: Awaited<ReturnType<typeof startFilesPlatform>>;
  let alice: Person;
  let bob: Person;

  beforeAll(async () => {
    // A 1 MiB workspace quota (A's six PDFs are 48 KB each) for the quota's refusals, below.
    p = await startFilesPlatform({
      FILES_PROCESSING_SLOTS: '1',
      FILES_EXTRACTION_TIMEOUT_MS: '1500',
      FILES_WORKSPACE_QUOTA_BYTES: String(QUOTA),
    });
    alice = await p.person();
    bob = await p.person();
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  it("processes B's small file before A's backlog of slow files drains", async () => {
    const wsA = (await p.workspace(alice)).id;
    const wsB = (await p.workspace(bob)).id;
    const slow = makeSlowPdf();
    const queued = await p.upload(
      alice.auth,
      { workspaceId: wsA },
      Array.from({ length: 6 }, (_, i) => ({ name: `slow-${i}.pdf`, bytes: slow, mime: 'application/pdf' })),
    );
    expect(queued.status, queued.text).toBe(201);
    const aIds: string[] = queued.body.files.map((f: { id: string }) => f.id);

    const small = await p.upload(bob.auth, { workspaceId: wsB }, [{ name: 'small.txt', bytes: fixture('sample.txt') }]);
    expect(small.status, small.text).toBe(201);
    expect(await p.settled(bob.auth, small.body.file.id, 120_000)).toMatchObject({ status: 'ready' });

    // When B's file is ready, most of A's are still waiting: B did not queue behind them.
    const aStates = await Promise.all(
      aIds.map(async (id) => (await p.api.ok(alice.auth, 'GET', `/api/files/${id}/status`, undefined, 200)).status),
    );
    expect(aStates.filter((s) => s === 'processing').length, aStates.join()).toBeGreaterThanOrEqual(3);

    // A's files still all end, each as its own timeout.
    for (const id of aIds)
      expect(await p.settled(alice.auth, id, 120_000)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
  }, 300_000);

  it("names the quota as QUOTA_EXCEEDED's limit, what is used and what is left, whichever file goes over", async () => {
    const ws = (await p.workspace(bob)).id;
    const bytes = (n: number) => new Uint8Array(n).fill(0x61);
    expect((await p.upload(bob.auth, { workspaceId: ws }, [{ name: 'first.bin', bytes: bytes(800_000) }])).status).toBe(
      201,
    );
    // The second file of one upload does not fit in what is left: nothing of the upload is kept.
    const over = await p.upload(bob.auth, { workspaceId: ws }, [
      { name: 'fits.bin', bytes: bytes(100_000) },
      { name: 'does-not.bin', bytes: bytes(200_000) },
    ]);
    expect(over.status, over.text).toBe(413);
    expect(over.body).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: QUOTA, used: 900_000, left: QUOTA - 900_000 });
    // Filled to the byte, the next file is refused the same way.
    expect(
      (await p.upload(bob.auth, { workspaceId: ws }, [{ name: 'rest.bin', bytes: bytes(QUOTA - 800_000) }])).status,
    ).toBe(201);
    const full = await p.upload(bob.auth, { workspaceId: ws }, [{ name: 'one-more.bin', bytes: bytes(1) }]);
    expect(full.status, full.text).toBe(413);
    expect(full.body).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: QUOTA, used: QUOTA, left: 0 });
  });
});
