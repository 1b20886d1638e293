import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders } from '../../support/accounts.js';
import { UNKNOWN_ID, WORKSPACE_NOT_FOUND } from '../workspaces/workspaces-api.js';
import { startFragmentsPlatform, type Person } from './fragments-fixture.js';

/** Memory fragments over real HTTP: create, read, list, update, patch, archive, delete. */
describe('memory fragments', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let other: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;

  const create = (auth: string, fields: Record<string, unknown>) =>
    p.api.call(auth, 'POST', '/api/memory-fragments', {
      workspaceId: ws.id,
      fragmentTypeId: ws.noteTypeId,
      title: 'T',
      content: 'Body',
      ...fields,
    });

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    other = await p.person();
    ws = await p.workspace(owner);
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  });

  describe('create', () => {
    it('answers 201 with the fragment in status processing, frontmatter parsed and kept verbatim', async () => {
      const content = '---\ntitle: Hello\ntags: [a, b]\n---\n# Body\ntext\n';
      const res = await create(owner.auth, {
        title: 'First',
        content,
        tags: ['x', 'y'],
        createdVia: 'import',
        key: 'first',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        fragment: {
          id: expect.any(String),
          workspaceId: ws.id,
          fragmentTypeId: ws.noteTypeId,
          title: 'First',
          content,
          frontmatter: { title: 'Hello', tags: ['a', 'b'] },
          summary: null,
          tags: ['x', 'y'],
          enhanceTags: false,
          key: 'first',
          status: 'processing',
          createdVia: 'import',
          version: 1,
          enrichment: expect.objectContaining({
            summary: expect.objectContaining({ state: 'pending' }),
            tags: expect.objectContaining({ state: 'skipped' }),
          }),
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          createdBy: owner.id,
          archivedAt: null,
        },
      });
      const got = await p.api.call(owner.auth, 'GET', `/api/memory-fragments/${res.body.fragment.id}`);
      expect(got.status).toBe(200);
      // Enrichment may have moved on meanwhile (status, summary, per-step state): the rest is as created.
      const { status: _s, summary: _m, tags: _t, enrichment: _e, updatedAt: _u, ...stable } = res.body.fragment;
      expect(got.body).toMatchObject({ success: true, fragment: stable });
    });

    it('gives frontmatter null when it is invalid YAML, never an error', async () => {
      const res = await create(owner.auth, { content: '---\n: : [unclosed\n---\nbody' });
      expect(res.status).toBe(201);
      expect(res.body.fragment.frontmatter).toBeNull();
    });

    it('refuses bad input with 400', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ title: 42 }, 'VALIDATION_FAILED'],
        [{ title: undefined }, 'VALIDATION_FAILED'],
        [{ content: undefined }, 'VALIDATION_FAILED'],
        [{ tags: 'a,b' }, 'VALIDATION_FAILED'],
        [{ enhanceTags: 'yes' }, 'VALIDATION_FAILED'],
        [{ createdVia: 'telepathy' }, 'VALIDATION_FAILED'],
        [{ fragmentTypeId: 'not-a-uuid' }, 'VALIDATION_FAILED'],
        [{ workspaceId: undefined }, 'VALIDATION_FAILED'],
        [{ ownerId: owner.id }, 'VALIDATION_FAILED'],
        [{ fragmentTypeId: UNKNOWN_ID }, 'INVALID_FRAGMENT_TYPE'],
      ];
      for (const [fields, code] of cases) {
        const res = await create(owner.auth, fields);
        expect(res.status, JSON.stringify(fields)).toBe(400);
        expect(res.body.code, JSON.stringify(fields)).toBe(code);
      }
    });

    it("refuses another workspace's type id with 400 INVALID_FRAGMENT_TYPE", async () => {
      const foreign = await p.workspace(other);
      const res = await create(owner.auth, { fragmentTypeId: foreign.noteTypeId });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_FRAGMENT_TYPE' });
    });

    it('answers a non-member exactly like a missing workspace', async () => {
      const hidden = await create(other.auth, {});
      const missing = await p.api.call(other.auth, 'POST', '/api/memory-fragments', {
        workspaceId: UNKNOWN_ID,
        fragmentTypeId: ws.noteTypeId,
        title: 'T',
        content: 'c',
      });
      expect(hidden.status).toBe(404);
      expect(hidden.text).toBe(WORKSPACE_NOT_FOUND);
      expect(missing.text).toBe(WORKSPACE_NOT_FOUND);
      const list = await p.api.call(other.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`);
      expect(list.status).toBe(404);
      expect(list.text).toBe(WORKSPACE_NOT_FOUND);
    });
  });

  describe('keys', () => {
    it('finds a record by key and answers 409 KEY_EXISTS with existingId for a taken key', async () => {
      const first = await create(owner.auth, { key: 'import/1' });
      expect(first.status).toBe(201);
      const again = await create(owner.auth, { key: 'import/1' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: 'KEY_EXISTS', existingId: first.body.fragment.id });
      const found = await p.api.ok(
        owner.auth,
        'GET',
        `/api/memory-fragments?workspaceId=${ws.id}&key=${encodeURIComponent('import/1')}`,
        undefined,
        200,
      );
      expect(found.items.map((f: any) => f.id)).toEqual([first.body.fragment.id]);
    });

    it('lets exactly one of 20 concurrent creates with the same key win', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => create(owner.auth, { key: 'race', title: `racer ${i}` })),
      );
      const won = answers.filter((a) => a.status === 201);
      const lost = answers.filter((a) => a.status === 409);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      for (const l of lost) expect(l.body).toMatchObject({ code: 'KEY_EXISTS', existingId: won[0]!.body.fragment.id });
    });
  });

  describe('list', () => {
    it('filters by tags (all must match), type, id and status, and validates limit', async () => {
      const own = await p.workspace(owner);
      const make = (fields: Record<string, unknown>) =>
        p.api.ok(
          owner.auth,
          'POST',
          '/api/memory-fragments',
          { workspaceId: own.id, fragmentTypeId: own.noteTypeId, title: 't', content: 'c', ...fields },
          201,
        );
      const a = (await make({ title: 'banana', tags: ['red', 'blue'] })).fragment;
      const b = (await make({ title: 'apple', tags: ['red'] })).fragment;
      const decision = own.types.find((t) => t.key === 'decision');
      const c = (await make({ title: 'cherry', fragmentTypeId: decision.id })).fragment;
      const ids = async (q: string) =>
        (
          await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${own.id}${q}`, undefined, 200)
        ).items.map((f: any) => f.id);
      expect(await ids('')).toEqual([a.id, b.id, c.id]);
      expect(await ids('&tags=red')).toEqual([a.id, b.id]);
      expect(await ids('&tags=red,blue')).toEqual([a.id]);
      expect(await ids('&tags=RED,Blue')).toEqual([a.id]);
      // A tag holding a comma is found with `\,`; `\\` is a backslash.
      const comma = (await make({ title: 'comma', tags: ['x,y', 'back\\'] })).fragment;
      const pair = (await make({ title: 'pair', tags: ['x', 'y'] })).fragment;
      expect(await ids(`&tags=${encodeURIComponent('x\\,y')}`)).toEqual([comma.id]);
      expect(await ids(`&tags=${encodeURIComponent('x,y')}`)).toEqual([pair.id]);
      expect(await ids(`&tags=${encodeURIComponent('X\\,Y,back\\\\')}`)).toEqual([comma.id]);
      for (const f of [comma, pair])
        await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${f.id}?permanent=true`, undefined, 200);
      expect(await ids(`&fragmentTypeId=${decision.id}`)).toEqual([c.id]);
      expect(await ids(`&id=${b.id}`)).toEqual([b.id]);
      const published = await p.api.ok(
        owner.auth,
        'GET',
        `/api/memory-fragments?workspaceId=${own.id}&status=published`,
        undefined,
        200,
      );
      for (const f of published.items) expect(f.status).toBe('published');
      expect(await ids('&sort=createdAt&order=desc')).toEqual([c.id, b.id, a.id]);
      expect(await ids('&sort=title')).toEqual([b.id, a.id, c.id]);
      expect(await ids('&sort=title&order=desc')).toEqual([c.id, a.id, b.id]);
      // The last one updated lists last by updatedAt, and its filters see the new values (after
      // enrichment, which may write summaries and tags, hence updatedAt, of all three).
      for (let i = 0; i < 400 && (await ids('&status=published')).length < 3; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await p.api.ok(owner.auth, 'PATCH', `/api/memory-fragments/${a.id}`, { tags: ['green'] }, 200);
      // b and c last changed when their enrichment finished, in either order (or the same
      // millisecond: then by id): the listing follows their updatedAt, a comes last.
      const [bNow, cNow] = await Promise.all(
        [b, c].map(
          async (f) => (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${f.id}`, undefined, 200)).fragment,
        ),
      );
      const byUpdate = [bNow, cNow].sort((x, y) =>
        x.updatedAt !== y.updatedAt ? (x.updatedAt < y.updatedAt ? -1 : 1) : x.id < y.id ? -1 : 1,
      );
      expect(await ids('&sort=updatedAt')).toEqual([...byUpdate.map((f) => f.id), a.id]);
      expect(await ids('&tags=red')).toEqual([b.id]);
      expect(await ids('&tags=green&sort=title&order=desc')).toEqual([a.id]);
      const page = await p.api.ok(
        owner.auth,
        'GET',
        `/api/memory-fragments?workspaceId=${own.id}&limit=5&offset=1`,
        undefined,
        200,
      );
      expect(page).toMatchObject({ success: true, count: 2, totalCount: 3, limit: 5, offset: 1 });
      expect(page).not.toHaveProperty('hasMore');
      for (const q of [
        '&limit=4',
        '&limit=501',
        '&limit=abc',
        // Decimal digits only: Number() would read these as 16, 10 and 10.
        '&limit=0x10',
        '&limit=1e1',
        '&limit=%2010',
        '&offset=-1',
        '&sort=size',
        '&order=up',
        '&status=gone',
        '&id=nope',
        '&bogus=1',
      ]) {
        const res = await p.api.call(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${own.id}${q}`);
        expect(res.status, q).toBe(400);
        expect(res.body.code, q).toBe('VALIDATION_FAILED');
      }
      const none = await p.api.call(owner.auth, 'GET', '/api/memory-fragments');
      expect(none.status).toBe(400);
    });
  });

  describe('update', () => {
    it('updates fields, bumps the version and re-triggers enrichment on a text change', async () => {
      const { fragment } = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'a', content: 'c', summary: 'mine' },
        201,
      );
      const res = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
        title: 'b',
        tags: ['t'],
        version: 1,
      });
      expect(res.status).toBe(200);
      expect(res.body.fragment).toMatchObject({
        title: 'b',
        tags: ['t'],
        version: 2,
        status: 'processing',
        summary: 'mine',
      });
    });

    it('refuses a stale version (body or If-Match) with 409 VERSION_CONFLICT and changes nothing', async () => {
      const { fragment } = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'a', content: 'c' },
        201,
      );
      await p.api.ok(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, { title: 'v2', version: 1 }, 200);
      const stale = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
        title: 'lost',
        version: 1,
      });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 2 });
      const viaHeader = await fetch(`${p.platform.url}/api/memory-fragments/${fragment.id}`, {
        method: 'PATCH',
        headers: { ...authHeaders(owner.auth), 'content-type': 'application/json', 'if-match': '"1"' },
        body: JSON.stringify({ title: 'lost' }),
      });
      expect(viaHeader.status).toBe(409);
      expect(await viaHeader.json()).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 2 });
      const current = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${fragment.id}`, undefined, 200);
      expect(current.fragment).toMatchObject({ title: 'v2', version: 2 });
      const ok = await fetch(`${p.platform.url}/api/memory-fragments/${fragment.id}`, {
        method: 'PATCH',
        headers: { ...authHeaders(owner.auth), 'content-type': 'application/json', 'if-match': '"2"' },
        body: JSON.stringify({ title: 'v3' }),
      });
      expect(ok.status).toBe(200);
      // `*` matches whatever is current (RFC 9110): no version precondition.
      const any = await fetch(`${p.platform.url}/api/memory-fragments/${fragment.id}`, {
        method: 'PATCH',
        headers: { ...authHeaders(owner.auth), 'content-type': 'application/json', 'if-match': '*' },
        body: JSON.stringify({ title: 'v4' }),
      });
      expect(any.status).toBe(200);
      expect(((await any.json()) as { fragment: unknown }).fragment).toMatchObject({ title: 'v4', version: 4 });
    });

    it('applies concurrent updates without a version to whatever is current: none fails, none is lost', async () => {
      const { fragment } = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'race', content: 'start' },
        201,
      );
      const patch = (body: Record<string, unknown>) =>
        p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, body);
      const lines = Array.from({ length: 8 }, (_, n) => `line${n}`);
      const appends = await Promise.all(lines.map((text) => patch({ operations: [{ op: 'append', text }] })));
      expect(appends.map((r) => r.status)).toEqual(lines.map(() => 200));
      const tagged = await Promise.all(lines.map((_, n) => patch({ tags: [`t${n}`] })));
      expect(tagged.map((r) => r.status)).toEqual(lines.map(() => 200));

      const { fragment: after } = await p.api.ok(
        owner.auth,
        'GET',
        `/api/memory-fragments/${fragment.id}`,
        undefined,
        200,
      );
      const written = after.content.split('\n');
      expect(written[0]).toBe('start');
      expect(written.slice(1).sort()).toEqual(lines);
      // Each update wrote its own version; the last tags written are one of those sent.
      expect(after.version).toBe(1 + 2 * lines.length);
      expect(after.tags).toHaveLength(1);
      expect(lines.map((_, n) => `t${n}`)).toContain(after.tags[0]);
    });

    it('applies patch operations, refuses content with operations and unknown headings', async () => {
      const content = '---\na: 1\n---\n# Title\nintro\n## Steps\nold step\n### Detail\nold detail\n## Notes\nkeep\n';
      const { fragment } = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'p', content },
        201,
      );
      const patched = await p.api.ok(
        owner.auth,
        'PATCH',
        `/api/memory-fragments/${fragment.id}`,
        {
          operations: [
            { op: 'replaceSection', heading: 'Steps', text: 'new step' },
            { op: 'append', text: 'tail' },
            { op: 'prepend', text: 'head' },
          ],
        },
        200,
      );
      expect(patched.fragment.content).toBe(
        '---\na: 1\n---\nhead\n# Title\nintro\n## Steps\nnew step\n\n## Notes\nkeep\ntail',
      );
      expect(patched.fragment.frontmatter).toEqual({ a: 1 });
      const both = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
        content: 'x',
        operations: [{ op: 'append', text: 'y' }],
      });
      expect(both.status).toBe(400);
      const missing = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
        operations: [{ op: 'replaceSection', heading: 'Nope', text: 'y' }],
      });
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('SECTION_NOT_FOUND');
      const badOp = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
        operations: [{ op: 'delete', text: 'y' }],
      });
      expect(badOp.status).toBe(400);
      const unknownField = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
        status: 'published',
      });
      expect(unknownField.status).toBe(400);
    });

    it('prepends and appends to content that is only a frontmatter block, keeping the block', async () => {
      for (const [op, expected] of [
        ['prepend', '---\ntitle: x\n---\nTOP\n'],
        ['append', '---\ntitle: x\n---\nEND'],
      ] as const) {
        const { fragment } = await p.api.ok(
          owner.auth,
          'POST',
          '/api/memory-fragments',
          { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: op, content: '---\ntitle: x\n---' },
          201,
        );
        expect(fragment.frontmatter).toEqual({ title: 'x' });
        const text = op === 'prepend' ? 'TOP' : 'END';
        const patched = await p.api.ok(
          owner.auth,
          'PATCH',
          `/api/memory-fragments/${fragment.id}`,
          { operations: [{ op, text }] },
          200,
        );
        expect([op, patched.fragment.content, patched.fragment.frontmatter]).toEqual([op, expected, { title: 'x' }]);
      }
    });

    it('moves a fragment only to a type of its own workspace', async () => {
      const { fragment } = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'm', content: 'c' },
        201,
      );
      const foreign = await p.workspace(other);
      const res = await p.api.call(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
        fragmentTypeId: foreign.noteTypeId,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_FRAGMENT_TYPE');
    });
  });

  describe('roles', () => {
    it('lets contributors edit their own fragments only; collaborators edit any', async () => {
      const team = await p.workspace(owner);
      const contributor = await p.person();
      const collaborator = await p.person();
      const viewer = await p.person();
      await p.api.addMember(owner.auth, team.id, contributor, 'contributor');
      await p.api.addMember(owner.auth, team.id, collaborator, 'collaborator');
      await p.api.addMember(owner.auth, team.id, viewer, 'viewer');
      const body = { workspaceId: team.id, fragmentTypeId: team.noteTypeId, title: 'x', content: 'c' };
      const ownersFragment = (await p.api.ok(owner.auth, 'POST', '/api/memory-fragments', body, 201)).fragment;
      const contributorsFragment = (await p.api.ok(contributor.auth, 'POST', '/api/memory-fragments', body, 201))
        .fragment;

      const denied = await p.api.call(contributor.auth, 'PATCH', `/api/memory-fragments/${ownersFragment.id}`, {
        title: 'mine now',
      });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      expect((await p.api.call(contributor.auth, 'DELETE', `/api/memory-fragments/${ownersFragment.id}`)).status).toBe(
        403,
      );
      expect(
        (
          await p.api.call(contributor.auth, 'PATCH', `/api/memory-fragments/${contributorsFragment.id}`, {
            title: 'own',
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await p.api.call(collaborator.auth, 'PATCH', `/api/memory-fragments/${ownersFragment.id}`, {
            title: 'curated',
          })
        ).status,
      ).toBe(200);
      expect((await p.api.call(viewer.auth, 'POST', '/api/memory-fragments', body)).status).toBe(403);
      expect((await p.api.call(viewer.auth, 'GET', `/api/memory-fragments/${ownersFragment.id}`)).status).toBe(200);
      const outsider = await p.api.call(other.auth, 'GET', `/api/memory-fragments/${ownersFragment.id}`);
      expect(outsider.status).toBe(404);
      expect(outsider.body).toEqual({ error: 'Fragment not found', code: 'NOT_FOUND' });
      // Permanent deletion is the owners'.
      expect(
        (await p.api.call(collaborator.auth, 'DELETE', `/api/memory-fragments/${ownersFragment.id}?permanent=true`))
          .status,
      ).toBe(403);
    });
  });

  describe('archive and delete', () => {
    it('archives: hidden from listings unless includeArchived, still readable; owners delete permanently', async () => {
      const own = await p.workspace(owner);
      const { fragment } = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: own.id, fragmentTypeId: own.noteTypeId, title: 'a', content: 'c' },
        201,
      );
      const archived = await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${fragment.id}`, undefined, 200);
      expect(archived.success).toBe(true);
      expect(archived.fragment.archivedAt).toEqual(expect.any(String));
      expect(
        (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${own.id}`, undefined, 200)).totalCount,
      ).toBe(0);
      expect(
        (
          await p.api.ok(
            owner.auth,
            'GET',
            `/api/memory-fragments?workspaceId=${own.id}&includeArchived=true`,
            undefined,
            200,
          )
        ).totalCount,
      ).toBe(1);
      const refetched = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${fragment.id}`, undefined, 200);
      expect(refetched.fragment.archivedAt).toBe(archived.fragment.archivedAt);
      await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${fragment.id}?permanent=true`, undefined, 200);
      expect((await p.api.call(owner.auth, 'GET', `/api/memory-fragments/${fragment.id}`)).status).toBe(404);
      expect((await p.api.call(owner.auth, 'GET', '/api/memory-fragments/not-a-uuid')).status).toBe(404);
    });
  });

  describe('check-limits', () => {
    it('reports the limits and the current count', async () => {
      const own = await p.workspace(owner);
      await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: own.id, fragmentTypeId: own.noteTypeId, title: 'a', content: 'c' },
        201,
      );
      const limits = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments/check-limits',
        { workspaceId: own.id },
        200,
      );
      expect(limits).toEqual({
        success: true,
        maxFragmentsPerWorkspace: expect.any(Number),
        maxContentBytes: expect.any(Number),
        currentCount: 1,
        remaining: limits.maxFragmentsPerWorkspace - 1,
        canCreate: true,
        // Without PLANS no plan limits fragments: the deployment's cap is the one.
        planId: null,
        limitedBy: 'deployment',
      });
      expect((await p.api.call(owner.auth, 'POST', '/api/memory-fragments/check-limits', {})).status).toBe(400);
      expect(
        (await p.api.call(other.auth, 'POST', '/api/memory-fragments/check-limits', { workspaceId: own.id })).text,
      ).toBe(WORKSPACE_NOT_FOUND);
    });
  });
});
