import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFilesPlatform } from './files/files-fixture.js';
import type { Person } from './fragments/fragments-fixture.js';
import type { Answer } from './workspaces/workspaces-api.js';

const ROUNDS = 6;

/**
 * Requests that conflict, sent at the same moment: whichever lands first, the other answers
 * in the error shape with a 4xx that says what happened (404 gone, 409 conflict), never a 500,
 * and the data ends in one of the states a sequential order would have left.
 */
describe('conflicting requests at the same moment (embedded platform, real HTTP)', () => {
  let fx: Awaited<ReturnType<typeof startFilesPlatform>>;
  let owner: Person;
  let ws: { id: string; noteTypeId: string };

  beforeAll(async () => {
    fx = await startFilesPlatform();
    owner = await fx.person();
    ws = await fx.workspace(owner);
  }, 120_000);
  afterAll(async () => {
    await fx?.stop();
  });

  const call = (method: string, path: string, body?: unknown) => fx.api.call(owner.auth, method, path, body);
  const fragment = async (fields: Record<string, unknown> = {}) =>
    (
      await fx.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 't', content: 'c', ...fields },
        201,
      )
    ).fragment;
  /** Every answer is a success or one of `allowed`, in the error shape. */
  const expectOnly = (answers: Answer[], allowed: number[]) => {
    for (const answer of answers) {
      if (answer.status < 300) continue;
      const logged = fx.platform.logs
        .filter((l: any) => l.level === 'error' || l.level === 50)
        .slice(-2)
        .map((l: any) => JSON.stringify(l).slice(0, 900));
      expect(allowed, `${answer.status} ${answer.text} ${JSON.stringify(logged)}`).toContain(answer.status);
      // The platform's shape, or the OpenAI one on /api/v1 routes.
      if (typeof answer.body?.error === 'object')
        expect(answer.body.error).toMatchObject({ message: expect.any(String), code: expect.any(String) });
      else expect(answer.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  };

  it('a fragment updated, archived and deleted for good at once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const f = await fragment();
      const answers = await Promise.all([
        call('PATCH', `/api/memory-fragments/${f.id}`, { title: 'new' }),
        call('DELETE', `/api/memory-fragments/${f.id}`),
        call('DELETE', `/api/memory-fragments/${f.id}?permanent=true`),
        call('PATCH', `/api/memory-fragments/${f.id}`, { content: 'changed', version: 1 }),
      ]);
      expectOnly(answers, [404, 409]);
      expect(answers[2]!.status).toBe(200); // the permanent delete always wins in the end
      expect((await call('GET', `/api/memory-fragments/${f.id}`)).status).toBe(404);
    }
  });

  it('a fragment added to a collection while it is deleted, and a collection deleted while fragments are added', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const f = await fragment();
      const collection = (
        await fx.api.ok(owner.auth, 'POST', `/api/workspaces/${ws.id}/collections`, { name: `c${round}` }, 201)
      ).collection;
      const members = `/api/workspaces/${ws.id}/collections/${collection.id}/fragments`;
      const answers = await Promise.all([
        call('POST', members, { fragmentIds: [f.id] }),
        call('DELETE', `/api/memory-fragments/${f.id}?permanent=true`),
        call('DELETE', `/api/workspaces/${ws.id}/collections/${collection.id}`),
        call('POST', members, { fragmentIds: [f.id] }),
      ]);
      expectOnly(answers, [400, 404]);
      expect((await call('GET', `/api/workspaces/${ws.id}/collections/${collection.id}`)).status).toBe(404);
    }
  });

  it('a fragment type deleted while fragments of it are created', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const type = (
        await fx.api.ok(
          owner.auth,
          'POST',
          `/api/workspaces/${ws.id}/fragment-types`,
          { key: `t${round}`, name: 'T' },
          201,
        )
      ).fragmentType;
      const create = () =>
        call('POST', '/api/memory-fragments', {
          workspaceId: ws.id,
          fragmentTypeId: type.id,
          title: 't',
          content: 'c',
        });
      const answers = await Promise.all([
        create(),
        call('DELETE', `/api/workspaces/${ws.id}/fragment-types/${type.id}`),
        create(),
      ]);
      expectOnly(answers, [400, 404, 409]);
      // Either the type is gone and no fragment has it, or it stayed because a fragment has it.
      const created = answers.filter((a) => a.status === 201).length;
      const typeNow = await call('GET', `/api/workspaces/${ws.id}/fragment-types/${type.id}`);
      if (typeNow.status === 404) expect(created).toBe(0);
      else expect(answers[1]!.status).toBe(409);
    }
  });

  it('two fragments created with one key, and an upsert racing a delete', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const key = `k-${round}`;
      const answers = await Promise.all(
        [fragment, fragment].map(() =>
          call('POST', '/api/memory-fragments', {
            workspaceId: ws.id,
            fragmentTypeId: ws.noteTypeId,
            title: 't',
            content: 'c',
            key,
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      const holder = answers.find((a) => a.status === 201)!.body.fragment;
      const bulk = await Promise.all([
        call('POST', '/api/memory-fragments/bulk', {
          workspaceId: ws.id,
          upsert: true,
          items: [{ fragmentTypeId: ws.noteTypeId, title: 'again', content: 'c', key }],
        }),
        call('DELETE', `/api/memory-fragments/${holder.id}?permanent=true`),
      ]);
      expectOnly(bulk, [404, 409]);
    }
  });

  it('a webhook updated, rotated and deleted at once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const hook = (
        await fx.api.ok(
          owner.auth,
          'POST',
          `/api/workspaces/${ws.id}/webhooks`,
          { name: 'h', url: 'https://93.184.216.34/in', events: ['fragment.created'] },
          201,
        )
      ).webhook;
      const base = `/api/workspaces/${ws.id}/webhooks/${hook.id}`;
      const answers = await Promise.all([
        call('PATCH', base, { name: 'renamed' }),
        call('POST', `${base}/rotate-secret`, {}),
        call('DELETE', base),
        call('PATCH', base, { events: ['fragment.updated'] }),
      ]);
      expectOnly(answers, [404, 409]);
      expect((await call('GET', base)).status).toBe(404);
    }
  });

  it('fragments created in a workspace while it is archived', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const other = await fx.workspace(owner, { name: `w${round}` });
      const create = () =>
        call('POST', '/api/memory-fragments', {
          workspaceId: other.id,
          fragmentTypeId: other.noteTypeId,
          title: 't',
          content: 'c',
        });
      const answers = await Promise.all([create(), call('DELETE', `/api/workspaces/${other.id}`), create()]);
      expectOnly(answers, [403, 404, 409]);
    }
  });

  it('a collection and a fragment type renamed while they are deleted', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const collection = (
        await fx.api.ok(owner.auth, 'POST', `/api/workspaces/${ws.id}/collections`, { name: `r${round}` }, 201)
      ).collection;
      const type = (
        await fx.api.ok(
          owner.auth,
          'POST',
          `/api/workspaces/${ws.id}/fragment-types`,
          { key: `r${round}`, name: 'T' },
          201,
        )
      ).fragmentType;
      const c = `/api/workspaces/${ws.id}/collections/${collection.id}`;
      const t = `/api/workspaces/${ws.id}/fragment-types/${type.id}`;
      const answers = await Promise.all([
        call('PATCH', c, { name: 'renamed' }),
        call('DELETE', c),
        call('DELETE', c),
        call('PATCH', t, { name: 'renamed' }),
        call('DELETE', t),
        call('DELETE', t),
      ]);
      expectOnly(answers, [404]);
      expect((await call('GET', c)).status).toBe(404);
      expect((await call('GET', t)).status).toBe(404);
    }
  });

  it('a file renamed, attached, downloaded and deleted at once, and attached to a fragment being deleted', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const uploaded = await fx.upload(owner.auth, { workspaceId: ws.id }, [
        { name: `n${round}.txt`, bytes: new TextEncoder().encode(`note ${round}`), mime: 'text/plain' },
      ]);
      expect(uploaded.status).toBe(201);
      const file = uploaded.body.file;
      const f = await fragment();
      const answers = await Promise.all([
        call('PATCH', `/api/files/${file.id}`, { name: 'renamed.txt' }),
        call('POST', `/api/files/${file.id}/attachments`, { fragmentId: f.id }),
        call('DELETE', `/api/memory-fragments/${f.id}?permanent=true`),
        call('DELETE', `/api/files/${file.id}`),
        call('POST', `/api/files/${file.id}/cancel`, {}),
        call('DELETE', `/api/files/${file.id}`),
      ]);
      expectOnly(answers, [404, 409]);
      expect((await fx.download(owner.auth, `/api/files/${file.id}/download`)).res.status).toBe(404);
    }
  });

  it('two of one unique thing created at once: one is created, the other answers 409', async () => {
    const invitee = await fx.person();
    for (let round = 0; round < ROUNDS; round++) {
      const pairs = await Promise.all([
        ...[1, 2].map(() =>
          call('POST', `/api/workspaces/${ws.id}/fragment-types`, { key: `same-${round}`, name: 'T' }),
        ),
        ...[1, 2].map(() =>
          call('POST', '/api/v1/vault/secrets', { name: `same-${round}`, type: 'api-key', provider: 'x', value: 'v' }),
        ),
      ]);
      expectOnly(pairs, [409]);
      expect(pairs.map((a) => a.status)).toEqual(expect.arrayContaining([201, 409, 201, 409]));
      const other = await fx.workspace(owner, { name: `inv${round}` });
      const invites = await Promise.all(
        [1, 2].map(() =>
          call('POST', `/api/workspaces/${other.id}/members`, { email: invitee.email, role: 'contributor' }),
        ),
      );
      expectOnly(invites, [409]);
      expect(invites.map((a) => a.status).sort()).toEqual([201, 409]);
    }
  });

  it('an invitation accepted twice while it is revoked, and a member removed while leaving', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const member = await fx.person();
      const other = await fx.workspace(owner, { name: `m${round}` });
      const { invitation } = await fx.api.ok(
        owner.auth,
        'POST',
        `/api/workspaces/${other.id}/members`,
        { email: member.email, role: 'contributor' },
        201,
      );
      const accept = () => fx.api.call(member.auth, 'POST', `/api/invitations/${invitation.id}/accept`);
      const answers = await Promise.all([
        accept(),
        accept(),
        call('DELETE', `/api/workspaces/${other.id}/invitations/${invitation.id}`),
      ]);
      expectOnly(answers, [404, 409]);
      const joined = (await call('GET', `/api/workspaces/${other.id}/members`)).body.items.some(
        (m: { userId: string }) => m.userId === member.id,
      );
      if (!joined) continue;
      const gone = await Promise.all([
        call('DELETE', `/api/workspaces/${other.id}/members/${member.id}`),
        fx.api.call(member.auth, 'DELETE', `/api/workspaces/${other.id}/members/${member.id}`),
        call('PATCH', `/api/workspaces/${other.id}/members/${member.id}`, { role: 'collaborator' }),
      ]);
      expectOnly(gone, [403, 404]);
      const members = (await call('GET', `/api/workspaces/${other.id}/members`)).body.items;
      expect(members.map((m: { userId: string }) => m.userId)).toEqual([owner.id]);
    }
  });

  it('account resources changed and deleted at once: tokens, applications, experts, embed configurations and keys, vault secrets, hosted zones', async () => {
    const created = async (path: string, body: unknown, pick: (b: any) => string) => {
      const answer = await call('POST', path, body);
      expect(answer.status, `${path}: ${answer.text}`).toBe(201);
      return pick(answer.body);
    };
    for (let round = 0; round < ROUNDS; round++) {
      const token = await created('/api/tokens', { name: `t${round}`, scopes: ['fragments:read'] }, (b) => b.token.id);
      const app = await created(
        '/api/applications',
        { name: `a${round}`, redirectUris: ['https://app.example/callback'] },
        (b) => b.application.id,
      );
      const expert = await created('/api/v2/experts', { name: `e${round}`, workspaceId: ws.id }, (b) => b.expert.id);
      const config = await created('/api/v2/configs', { name: `c${round}`, workspaceId: ws.id }, (b) => b.config.id);
      const key = await created(`/api/v2/configs/${config}/keys`, { label: 'k', public: true }, (b) => b.key.id);
      const secret = await created(
        '/api/v1/vault/secrets',
        { name: `v${round}`, type: 'api-key', provider: 'x', value: 'v' },
        (b) => b.secret.id,
      );
      const zone = await created('/api/hosted-zones', { name: `z${round}`, region: 'eu' }, (b) => b.hostedZone.id);
      const answers = await Promise.all([
        call('PATCH', `/api/tokens/${token}`, { name: 'renamed' }),
        call('DELETE', `/api/tokens/${token}`),
        call('DELETE', `/api/tokens/${token}`),
        call('PATCH', `/api/applications/${app}`, { name: 'renamed' }),
        call('POST', `/api/applications/${app}/secret`, {}),
        call('DELETE', `/api/applications/${app}`),
        call('DELETE', `/api/applications/${app}`),
        call('PATCH', `/api/v2/experts/${expert}`, { name: 'renamed' }),
        call('DELETE', `/api/v2/experts/${expert}`),
        call('DELETE', `/api/v2/experts/${expert}`),
        call('PATCH', `/api/v2/configs/${config}/keys/${key}`, { label: 'renamed' }),
        call('DELETE', `/api/v2/configs/${config}/keys/${key}`),
        call('POST', `/api/v2/configs/${config}/keys`, { label: 'late', public: true }),
        call('PATCH', `/api/v2/configs/${config}`, { name: 'renamed' }),
        call('DELETE', `/api/v2/configs/${config}`),
        call('PATCH', `/api/v1/vault/secrets/${secret}`, { name: 'renamed' }),
        call('DELETE', `/api/v1/vault/secrets/${secret}`),
        call('DELETE', `/api/v1/vault/secrets/${secret}`),
        call('PATCH', `/api/hosted-zones/${zone}`, { name: 'renamed' }),
        call('POST', `/api/hosted-zones/${zone}/enrollment-token`, {}),
        call('DELETE', `/api/hosted-zones/${zone}`),
        call('DELETE', `/api/hosted-zones/${zone}`),
      ]);
      expectOnly(answers, [404, 409]);
      for (const gone of [
        `/api/tokens/${token}`,
        `/api/applications/${app}`,
        `/api/v2/experts/${expert}`,
        `/api/v1/vault/secrets/${secret}`,
        `/api/hosted-zones/${zone}`,
      ])
        expect((await call('GET', gone)).status, gone).toBe(404);
    }
  });

  it('creates racing for the last places of a cap: exactly those that fit are kept, the rest answer 409', async () => {
    // An account of its own: the other tests leave secrets and saved searches behind.
    const person = await fx.person();
    const { id: workspaceId } = await fx.workspace(person);
    const as = (method: string, path: string, body?: unknown) => fx.api.call(person.auth, method, path, body);
    const config = await fx.api.ok(person.auth, 'POST', '/api/v2/configs', { workspaceId, name: 'Caps' }, 201);
    const configId = config.config.id;
    const caps = [
      {
        what: 'saved searches per user and workspace',
        max: 100,
        code: 'CONFLICT',
        create: (i: number) => as('POST', '/api/search/saved', { workspaceId, name: `s${i}`, q: `q${i}` }),
        count: async () => (await as('GET', `/api/search/saved?workspaceId=${workspaceId}`)).body.items.length,
      },
      {
        what: 'embed keys per configuration',
        max: 50,
        code: 'QUOTA_EXCEEDED',
        create: (i: number) => as('POST', `/api/v2/configs/${configId}/keys`, { label: `k${i}`, public: true }),
        count: async () => (await as('GET', `/api/v2/configs/${configId}/keys`)).body.keys.length,
      },
      {
        what: 'vault secrets per user',
        max: 500,
        // /api/v1 answers in the OpenAI shape, its codes in lower case.
        code: 'quota_exceeded',
        create: (i: number) => as('POST', '/api/v1/vault/secrets', { name: `s${i}`, type: 'generic', value: 'v' }),
        count: async () => (await as('GET', '/api/v1/vault/secrets')).body.secrets.length,
      },
    ];
    for (const cap of caps) {
      // Up to two places short of the cap, twenty at a time (the cap is not reached meanwhile).
      for (let start = 0; start < cap.max - 2; start += 20) {
        const batch = Array.from({ length: Math.min(20, cap.max - 2 - start) }, (_, i) => cap.create(start + i));
        for (const answer of await Promise.all(batch)) expect(answer.status, `${cap.what}: ${answer.text}`).toBe(201);
      }
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => cap.create(cap.max + i)));
      expect(
        answers.filter((a) => a.status === 201),
        cap.what,
      ).toHaveLength(2);
      expectOnly(answers, [409]);
      // The platform's shape, or the OpenAI one on /api/v1 routes.
      const codes = answers.filter((a) => a.status === 409).map((a) => a.body.code ?? a.body.error?.code);
      expect(new Set(codes), cap.what).toEqual(new Set([cap.code]));
      expect(await cap.count(), cap.what).toBe(cap.max);
    }
  }, 120_000);
});
