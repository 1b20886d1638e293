import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFragmentsPlatform, type Person } from './fragments-fixture.js';

const TOTAL = 1234;
const PAGE = 100;

/** Offset paging over the default order (createdAt asc, then id) sees every record once, even while records are added. */
describe('fragment list pagination', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  });

  it(`walks ${TOTAL} records in pages of ${PAGE} and sees each exactly once while more are created`, async () => {
    const ws = await p.workspace(owner);
    const make = (i: number) =>
      p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: `n${i}`, content: `c${i}`, tags: ['bulk'] },
        201,
      );
    const started = Date.now();
    const ids = new Set<string>();
    for (let i = 0; i < TOTAL; i += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, TOTAL - i) }, (_, j) => make(i + j)));
      for (const b of batch) ids.add(b.fragment.id);
    }
    console.log(`created ${TOTAL} fragments over HTTP in ${Date.now() - started} ms`);

    const seen: string[] = [];
    let offset = 0;
    let added = 0;
    for (;;) {
      const page = await p.api.ok(
        owner.auth,
        'GET',
        `/api/memory-fragments?workspaceId=${ws.id}&limit=${PAGE}&offset=${offset}`,
        undefined,
        200,
      );
      seen.push(...page.items.map((f: any) => f.id));
      // Records added mid-walk land at the end of the default order.
      if (added < 3) {
        ids.add((await make(TOTAL + added)).fragment.id);
        added++;
      }
      if (page.count === 0 || offset + page.count >= page.totalCount) break;
      offset += page.count;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(ids);
  }, 600_000);
});
