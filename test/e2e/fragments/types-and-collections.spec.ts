import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_ID, WORKSPACE_NOT_FOUND } from '../workspaces/workspaces-api.js';
import { startFragmentsPlatform, type Person } from './fragments-fixture.js';

/** Fragment types and collections over real HTTP. */
describe('fragment types and collections', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let outsider: Person;

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    outsider = await p.person();
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  });

  describe('fragment types', () => {
    it('starts every workspace with the default types, once, even under concurrent first use', async () => {
      const ws = await p.api.createWorkspace(owner.auth);
      const lists = await Promise.all(
        Array.from({ length: 5 }, () =>
          p.api.ok(owner.auth, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200),
        ),
      );
      for (const list of lists)
        expect(list.items.map((t: any) => t.key).sort()).toEqual(['decision', 'howto', 'meeting', 'note', 'reference']);
      expect(lists[0].items[0]).toEqual({
        id: expect.any(String),
        workspaceId: ws.id,
        key: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        isDefault: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    });

    it('creates, gets, updates and deletes a type; refuses bad input, taken keys and types in use', async () => {
      const ws = await p.workspace(owner);
      const base = `/api/workspaces/${ws.id}/fragment-types`;
      const created = await p.api.call(owner.auth, 'POST', base, {
        key: 'runbook',
        name: 'Runbook',
        description: 'Ops',
      });
      expect(created.status).toBe(201);
      expect(created.body.fragmentType).toMatchObject({
        key: 'runbook',
        name: 'Runbook',
        description: 'Ops',
        isDefault: false,
        workspaceId: ws.id,
      });
      const id = created.body.fragmentType.id;
      expect((await p.api.call(owner.auth, 'POST', base, { key: 'runbook', name: 'Again' })).body.code).toBe(
        'TYPE_KEY_EXISTS',
      );
      for (const bad of [
        { key: 'Bad Key', name: 'x' },
        { name: 'x' },
        { key: 'k' },
        { key: 'k', name: 3 },
        { key: 'k', name: 'x', extra: 1 },
      ]) {
        const res = await p.api.call(owner.auth, 'POST', base, bad);
        expect(res.status, JSON.stringify(bad)).toBe(400);
      }
      expect((await p.api.ok(owner.auth, 'GET', `${base}/${id}`, undefined, 200)).fragmentType.key).toBe('runbook');
      expect((await p.api.ok(owner.auth, 'PATCH', `${base}/${id}`, { name: 'Runbooks' }, 200)).fragmentType.name).toBe(
        'Runbooks',
      );
      expect((await p.api.call(owner.auth, 'PATCH', `${base}/${id}`, { key: 'other' })).status).toBe(400);
      expect((await p.api.call(owner.auth, 'GET', `${base}/${UNKNOWN_ID}`)).status).toBe(404);

      await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: id, title: 't', content: 'c' },
        201,
      );
      await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: id, title: 't', content: 'c' },
        201,
      );
      const inUse = await p.api.call(owner.auth, 'DELETE', `${base}/${id}`);
      expect(inUse.status).toBe(409);
      expect(inUse.body).toMatchObject({ code: 'TYPE_IN_USE', fragmentCount: 2 });

      const spare = (await p.api.ok(owner.auth, 'POST', base, { key: 'spare', name: 'Spare' }, 201)).fragmentType;
      expect(await p.api.ok(owner.auth, 'DELETE', `${base}/${spare.id}`, undefined, 200)).toEqual({ success: true });
      expect((await p.api.call(owner.auth, 'GET', `${base}/${spare.id}`)).status).toBe(404);
    });

    it("hides another workspace's types and answers non-members like a missing workspace", async () => {
      const ws = await p.workspace(owner);
      const foreign = await p.workspace(outsider);
      expect(
        (await p.api.call(owner.auth, 'GET', `/api/workspaces/${ws.id}/fragment-types/${foreign.noteTypeId}`)).status,
      ).toBe(404);
      expect((await p.api.call(outsider.auth, 'GET', `/api/workspaces/${ws.id}/fragment-types`)).text).toBe(
        WORKSPACE_NOT_FOUND,
      );
      expect((await p.api.call(outsider.auth, 'GET', `/api/workspaces/${UNKNOWN_ID}/fragment-types`)).text).toBe(
        WORKSPACE_NOT_FOUND,
      );
    });
  });

  describe('collections', () => {
    it('creates, lists, gets, updates and deletes collections, with fragments added, listed, looked up and removed', async () => {
      const ws = await p.workspace(owner);
      const base = `/api/workspaces/${ws.id}/collections`;
      const make = async () =>
        (
          await p.api.ok(
            owner.auth,
            'POST',
            '/api/memory-fragments',
            { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 't', content: 'c' },
            201,
          )
        ).fragment;
      const [f1, f2, f3] = [await make(), await make(), await make()];

      const created = await p.api.call(owner.auth, 'POST', base, { name: 'Reading', description: 'later' });
      expect(created.status).toBe(201);
      expect(created.body.collection).toEqual({
        id: expect.any(String),
        workspaceId: ws.id,
        name: 'Reading',
        description: 'later',
        createdBy: owner.id,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        fragmentCount: 0,
      });
      const c = created.body.collection;
      for (const bad of [{}, { name: '' }, { name: 5 }, { name: 'x', color: 'red' }])
        expect((await p.api.call(owner.auth, 'POST', base, bad)).status).toBe(400);

      expect(
        await p.api.ok(owner.auth, 'POST', `${base}/${c.id}/fragments`, { fragmentIds: [f1.id, f2.id] }, 200),
      ).toEqual({ success: true, changed: 2 });
      expect(
        (await p.api.ok(owner.auth, 'POST', `${base}/${c.id}/fragments`, { fragmentIds: [f1.id] }, 200)).changed,
      ).toBe(0);
      const foreign = await p.workspace(outsider);
      const foreignFragment = (
        await p.api.ok(
          outsider.auth,
          'POST',
          '/api/memory-fragments',
          { workspaceId: foreign.id, fragmentTypeId: foreign.noteTypeId, title: 't', content: 'c' },
          201,
        )
      ).fragment;
      const refused = await p.api.call(owner.auth, 'POST', `${base}/${c.id}/fragments`, {
        fragmentIds: [f3.id, foreignFragment.id],
      });
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({ code: 'NOT_FOUND', fragmentIds: [foreignFragment.id] });
      expect((await p.api.call(owner.auth, 'POST', `${base}/${c.id}/fragments`, { fragmentIds: [] })).status).toBe(400);
      expect((await p.api.call(owner.auth, 'POST', `${base}/${c.id}/fragments`, { fragmentIds: ['x'] })).status).toBe(
        400,
      );

      const listed = await p.api.ok(owner.auth, 'GET', `${base}/${c.id}/fragments?limit=1`, undefined, 200);
      expect(listed).toMatchObject({ success: true, count: 1, totalCount: 2, limit: 1, offset: 0 });
      expect(listed.items[0].id).toBe(f1.id);
      expect(
        (await p.api.ok(owner.auth, 'GET', base, undefined, 200)).items.map((x: any) => [x.id, x.fragmentCount]),
      ).toEqual([[c.id, 2]]);
      expect((await p.api.ok(owner.auth, 'GET', `${base}/${c.id}`, undefined, 200)).collection.fragmentCount).toBe(2);
      expect((await p.api.ok(owner.auth, 'PATCH', `${base}/${c.id}`, { name: 'Read' }, 200)).collection.name).toBe(
        'Read',
      );

      const lookup = await p.api.ok(
        owner.auth,
        'POST',
        `/api/workspaces/${ws.id}/fragment-collections`,
        { fragmentIds: [f1.id, f3.id] },
        200,
      );
      expect(lookup).toEqual({
        success: true,
        items: [
          { fragmentId: f1.id, collections: [{ id: c.id, name: 'Read' }] },
          { fragmentId: f3.id, collections: [] },
        ],
      });
      const tooMany = Array.from({ length: 501 }, () => f1.id);
      expect(
        (
          await p.api.call(owner.auth, 'POST', `/api/workspaces/${ws.id}/fragment-collections`, {
            fragmentIds: tooMany,
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await p.api.call(owner.auth, 'POST', `/api/workspaces/${ws.id}/fragment-collections`, {
            fragmentIds: [foreignFragment.id],
          })
        ).status,
      ).toBe(404);

      const removed = await fetch(`${p.platform.url}${base}/${c.id}/fragments`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${owner.auth}`, 'content-type': 'application/json' },
        body: JSON.stringify({ fragmentIds: [f1.id] }),
      });
      expect(removed.status).toBe(200);
      expect(await removed.json()).toEqual({ success: true, changed: 1 });
      expect(await p.api.ok(owner.auth, 'DELETE', `${base}/${c.id}`, undefined, 200)).toEqual({ success: true });
      expect((await p.api.call(owner.auth, 'GET', `${base}/${c.id}`)).status).toBe(404);
      expect((await p.api.call(outsider.auth, 'GET', base)).text).toBe(WORKSPACE_NOT_FOUND);
    });

    it('counts in fragmentCount what the collection lists: archived fragments stay members, uncounted', async () => {
      const ws = await p.workspace(owner);
      const base = `/api/workspaces/${ws.id}/collections`;
      const ids: string[] = [];
      for (const title of ['kept', 'archived'])
        ids.push(
          (
            await p.api.ok(
              owner.auth,
              'POST',
              '/api/memory-fragments',
              { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title, content: 'c' },
              201,
            )
          ).fragment.id,
        );
      const { collection } = await p.api.ok(owner.auth, 'POST', base, { name: 'Mixed' }, 201);
      await p.api.ok(owner.auth, 'POST', `${base}/${collection.id}/fragments`, { fragmentIds: ids }, 200);
      await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${ids[1]}`, undefined, 200);

      const listed = await p.api.ok(owner.auth, 'GET', `${base}/${collection.id}/fragments`, undefined, 200);
      expect(listed).toMatchObject({ count: 1, totalCount: 1 });
      const counts = [
        (await p.api.ok(owner.auth, 'GET', base, undefined, 200)).items[0].fragmentCount,
        (await p.api.ok(owner.auth, 'GET', `${base}/${collection.id}`, undefined, 200)).collection.fragmentCount,
        (await p.api.ok(owner.auth, 'PATCH', `${base}/${collection.id}`, { name: 'Mixed 2' }, 200)).collection
          .fragmentCount,
      ];
      expect(counts).toEqual([1, 1, 1]);
      // Still a member: the lookup names the collection for the archived fragment too.
      const lookup = await p.api.ok(
        owner.auth,
        'POST',
        `/api/workspaces/${ws.id}/fragment-collections`,
        { fragmentIds: [ids[1]] },
        200,
      );
      expect(lookup.items[0].collections).toEqual([{ id: collection.id, name: 'Mixed 2' }]);
    });

    it('lets a contributor change only the collections it created', async () => {
      const ws = await p.workspace(owner);
      const contributor = await p.person();
      await p.api.addMember(owner.auth, ws.id, contributor, 'contributor');
      const base = `/api/workspaces/${ws.id}/collections`;
      const owners = (await p.api.ok(owner.auth, 'POST', base, { name: 'Owner' }, 201)).collection;
      const mine = (await p.api.ok(contributor.auth, 'POST', base, { name: 'Mine' }, 201)).collection;
      expect((await p.api.call(contributor.auth, 'PATCH', `${base}/${owners.id}`, { name: 'x' })).status).toBe(403);
      expect((await p.api.call(contributor.auth, 'DELETE', `${base}/${owners.id}`)).status).toBe(403);
      expect((await p.api.call(contributor.auth, 'PATCH', `${base}/${mine.id}`, { name: 'y' })).status).toBe(200);
    });
  });
});
