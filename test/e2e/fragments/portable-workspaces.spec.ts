import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_NAMES } from '../../../libs/fragments/src/domain/workspace-archive.js';
import { authHeaders } from '../../support/accounts.js';
import { rawRequest } from '../../support/raw-http.js';
import { deflatedZeros, zipWith } from '../../support/zip-bomb.js';
import { startFragmentsPlatform, type Person } from './fragments-fixture.js';

/**
 * Portable workspaces over real HTTP: a workspace exported to one zip by a background job with
 * progress, downloaded by its owner, imported into another workspace with everything the same,
 * imported again with nothing new, and damaged archives refused before anything is written, with
 * where the damage is.
 */
describe('portable workspaces: export and import', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let source: { id: string; noteTypeId: string };
  let archive: Uint8Array;

  const call = (auth: string, method: string, path: string, body?: unknown) => p.api.call(auth, method, path, body);
  const finished = async (auth: string, path: string) => {
    let last: any;
    await expect
      .poll(
        async () => {
          last = (await call(auth, 'GET', path)).body.transfer;
          return last.status;
        },
        { timeout: 60_000, interval: 100 },
      )
      .not.toBe('processing');
    return last;
  };
  const importArchive = async (workspaceId: string, bytes: Uint8Array, query = '') => {
    const res = await fetch(`${p.platform.url}/api/workspaces/${workspaceId}/imports${query}`, {
      method: 'POST',
      headers: { ...authHeaders(owner.auth), 'content-type': 'application/zip' },
      body: Buffer.from(bytes),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(202);
    return finished(owner.auth, `/api/workspaces/${workspaceId}/imports/${body.transfer.id}`);
  };
  /** Everything a person would compare, by title. */
  const snapshot = async (workspaceId: string) => {
    const types = (await p.api.ok(owner.auth, 'GET', `/api/workspaces/${workspaceId}/fragment-types`, undefined, 200))
      .items;
    const typeKey = new Map(types.map((t: any) => [t.id, t.key]));
    const list = await p.api.ok(
      owner.auth,
      'GET',
      `/api/memory-fragments?workspaceId=${workspaceId}&includeArchived=true&limit=500`,
      undefined,
      200,
    );
    const collections = (
      await p.api.ok(owner.auth, 'GET', `/api/workspaces/${workspaceId}/collections`, undefined, 200)
    ).items;
    const members = new Map<string, string[]>();
    for (const c of collections) {
      const page = await p.api.ok(
        owner.auth,
        'GET',
        `/api/workspaces/${workspaceId}/collections/${c.id}/fragments?limit=500`,
        undefined,
        200,
      );
      for (const f of page.items) members.set(f.title, [...(members.get(f.title) ?? []), c.name].sort());
    }
    const filesOf = new Map<string, unknown[]>();
    for (const f of list.items) {
      const attached = await p.api.ok(owner.auth, 'GET', `/api/fragments/${f.id}/files`, undefined, 200);
      filesOf.set(
        f.id,
        attached.items.map((file: any) => ({
          name: file.name,
          sha256: file.sha256,
          sizeBytes: file.sizeBytes,
          kind: file.kind,
        })),
      );
    }
    return list.items
      .map((f: any) => ({
        files: filesOf.get(f.id),
        title: f.title,
        content: f.content,
        summary: f.summary,
        tags: f.tags,
        key: f.key,
        type: typeKey.get(f.fragmentTypeId),
        archived: f.archivedAt !== null,
        collections: members.get(f.title) ?? [],
      }))
      .sort((a: any, b: any) => a.title.localeCompare(b.title));
  };

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    source = await p.workspace(owner);
    const recipe = await p.api.ok(
      owner.auth,
      'POST',
      `/api/workspaces/${source.id}/fragment-types`,
      { key: 'recipe', name: 'Recipe', description: 'How to cook it' },
      201,
    );
    const items = Array.from({ length: 30 }, (_, i) => ({
      fragmentTypeId: i % 3 === 0 ? recipe.fragmentType.id : source.noteTypeId,
      title: `Fragment ${String(i).padStart(2, '0')}`,
      content: `# Fragment ${i}\n\nMarker content ${i} — ünïcödé ✓`,
      ...(i % 2 === 0 ? { key: `k-${i}` } : {}),
      ...(i % 4 === 0 ? { summary: `Summary ${i}`, tags: ['even', `t${i}`] } : {}),
    }));
    const written = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments/bulk',
      { workspaceId: source.id, items },
      200,
    );
    expect(written.created).toBe(30);
    const ids: string[] = written.results.map((r: any) => r.id);
    // Two files: one attached to one fragment, one to two; bytes that are not text.
    const upload = async (name: string, bytes: Buffer, fragmentId: string) => {
      const form = new FormData();
      form.append('workspaceId', source.id);
      form.append('fragmentId', fragmentId);
      form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), name);
      const res = await fetch(`${p.platform.url}/api/files/upload`, {
        method: 'POST',
        headers: authHeaders(owner.auth),
        body: form,
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as any).file.id as string;
    };
    await upload('notes.md', Buffer.from('# Notes\n\nMarker file content\n'), ids[0]!);
    const blob = await upload('blob.bin', Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256)), ids[1]!);
    await p.api.ok(owner.auth, 'POST', `/api/files/${blob}/attachments`, { fragmentId: ids[2] }, 200);
    for (const [name, members] of [
      ['Kitchen', ids.slice(0, 10)],
      ['Garden', ids.slice(5, 12)],
    ] as const) {
      const { collection } = await p.api.ok(
        owner.auth,
        'POST',
        `/api/workspaces/${source.id}/collections`,
        { name, description: `${name} notes` },
        201,
      );
      await p.api.ok(
        owner.auth,
        'POST',
        `/api/workspaces/${source.id}/collections/${collection.id}/fragments`,
        { fragmentIds: members },
        200,
      );
    }
    // Enrichment settles first, so both sides compare generated summaries and tags as they stay.
    const processing = async () =>
      (
        await p.api.ok(
          owner.auth,
          'GET',
          `/api/memory-fragments?workspaceId=${source.id}&status=processing`,
          undefined,
          200,
        )
      ).totalCount;
    for (const deadline = Date.now() + 60_000; (await processing()) > 0;) {
      if (Date.now() > deadline) throw new Error('enrichment did not settle');
      await new Promise((r) => setTimeout(r, 200));
    }
    // One archived fragment travels too (archived once enriched, as people do).
    await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${ids[29]}`, undefined, 200);
  }, 120_000);
  afterAll(async () => p?.stop());

  it('exports in the background with progress, and only owners may', async () => {
    const collaborator = await p.person();
    await p.api.addMember(owner.auth, source.id, collaborator, 'collaborator');
    expect((await call(collaborator.auth, 'POST', `/api/workspaces/${source.id}/exports`)).status).toBe(403);
    const stranger = await p.person();
    expect((await call(stranger.auth, 'POST', `/api/workspaces/${source.id}/exports`)).status).toBe(404);

    const started = await call(owner.auth, 'POST', `/api/workspaces/${source.id}/exports`);
    expect(started.status, started.text).toBe(202);
    expect(started.body.transfer).toMatchObject({ kind: 'export', status: 'processing', workspaceId: source.id });
    const path = `/api/workspaces/${source.id}/exports/${started.body.transfer.id}`;
    const done = await finished(owner.auth, path);
    expect(done).toMatchObject({ status: 'done', progress: { done: 30, total: 30, percent: 100 }, error: null });
    expect(done.result).toMatchObject({ fragments: 30, collections: 2, 'collection-fragments': 17 });
    expect((await call(collaborator.auth, 'GET', `${path}/download`)).status).toBe(403);

    const res = await fetch(`${p.platform.url}${path}/download`, { headers: authHeaders(owner.auth) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    // The whole workspace: no cache may keep a copy (bb-sec 11).
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    archive = new Uint8Array(await res.arrayBuffer());
    expect(archive.length).toBe(done.archiveBytes);
    const files = unzipSync(archive);
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    expect(manifest).toMatchObject({ format: 'kw-workspace-archive', version: 1, source: { workspaceId: source.id } });
    expect(manifest.entries['fragments.ndjson'].records).toBe(30);
    expect(strFromU8(files['fragments.ndjson']!).trim().split('\n')).toHaveLength(30);
    const archivedFiles = strFromU8(files['files.ndjson']!)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(archivedFiles.map((f: any) => f.name).sort()).toEqual(['blob.bin', 'notes.md']);
    for (const f of archivedFiles)
      expect(createHash('sha256').update(files[`files/${f.id}`]!).digest('hex')).toBe(f.sha256);

    // The owners were told.
    const notices = (await p.api.ok(owner.auth, 'GET', '/api/notifications', undefined, 200)).items.filter(
      (n: any) => n.kind === 'workspace.transfer',
    );
    expect(notices[0].payload).toMatchObject({ transferId: done.id, kind: 'export', status: 'done' });
  }, 60_000);

  it('imports into another workspace with everything the same, and again with nothing new', async () => {
    const target = await p.workspace(owner);
    const first = await importArchive(target.id, archive);
    expect(first).toMatchObject({ kind: 'import', status: 'done', error: null });
    expect(first.progress.done).toBe(first.progress.total);
    expect(first.result.fragments).toEqual({ created: 30, updated: 0, unchanged: 0 });
    expect(first.result.files).toEqual({ created: 2, unchanged: 0 });
    expect(await snapshot(target.id)).toEqual(await snapshot(source.id));
    // And the bytes themselves, downloaded from the target.
    const holder = (
      await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${target.id}&key=k-0`, undefined, 200)
    ).items[0];
    const attached = await p.api.ok(owner.auth, 'GET', `/api/fragments/${holder.id}/files`, undefined, 200);
    const download = await fetch(`${p.platform.url}/api/files/${attached.items[0].id}/download`, {
      headers: authHeaders(owner.auth),
    });
    expect(Buffer.from(await download.arrayBuffer()).toString()).toBe('# Notes\n\nMarker file content\n');

    const again = await importArchive(target.id, archive);
    expect(again.result.fragments).toEqual({ created: 0, updated: 0, unchanged: 30 });
    expect(again.result.files).toEqual({ created: 0, unchanged: 2 });
    expect(again.result.collectionFragmentsAdded).toBe(0);
    const collections = await p.api.ok(owner.auth, 'GET', `/api/workspaces/${target.id}/collections`, undefined, 200);
    expect(collections.items).toHaveLength(2);
    expect(await snapshot(target.id)).toEqual(await snapshot(source.id));
  }, 120_000);

  it('imports its own export back into the workspace without duplicating anything', async () => {
    const before = await snapshot(source.id);
    const back = await importArchive(source.id, archive);
    expect(back.status, back.error).toBe('done');
    // Keyless fragments and collections are found by their ids, which are this workspace's own.
    expect(back.result.fragments).toEqual({ created: 0, updated: 0, unchanged: 30 });
    expect(back.result).toMatchObject({
      collections: 2,
      collectionFragmentsAdded: 0,
      files: { created: 0, unchanged: 2 },
    });
    const collections = await p.api.ok(owner.auth, 'GET', `/api/workspaces/${source.id}/collections`, undefined, 200);
    expect(collections.items).toHaveLength(2);
    expect(await snapshot(source.id)).toEqual(before);
  }, 60_000);

  it('runs one import at a time per workspace: a second one while the first runs answers 409', async () => {
    const target = await p.workspace(owner);
    const post = () =>
      fetch(`${p.platform.url}/api/workspaces/${target.id}/imports`, {
        method: 'POST',
        headers: { ...authHeaders(owner.auth), 'content-type': 'application/zip' },
        body: Buffer.from(archive),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
    // Two at once: exactly one is accepted, the other names it.
    const both = await Promise.all([post(), post()]);
    expect(both.map((r) => r.status).sort(), JSON.stringify(both.map((r) => r.body))).toEqual([202, 409]);
    const accepted = both.find((r) => r.status === 202)!.body.transfer;
    const refused = both.find((r) => r.status === 409)!.body;
    expect(refused).toMatchObject({ code: 'CONFLICT', transferId: accepted.id });
    expect(refused.error).toEqual(expect.any(String));
    const first = await finished(owner.auth, `/api/workspaces/${target.id}/imports/${accepted.id}`);
    expect(first.status, first.error).toBe('done');
    expect(first.result.fragments).toEqual({ created: 30, updated: 0, unchanged: 0 });
    // Once it ended, the next one runs.
    const again = await importArchive(target.id, archive);
    expect(again.result.fragments).toEqual({ created: 0, updated: 0, unchanged: 30 });
  }, 120_000);

  it('answers 413 at once to an archive declared larger than 256 MiB, and the workspace can import meanwhile', async () => {
    const target = await p.workspace(owner);
    const headers = { ...authHeaders(owner.auth), 'content-type': 'application/zip', 'content-length': '314572800' };
    const head =
      `POST /api/workspaces/${target.id}/imports HTTP/1.1\r\nhost: ${new URL(p.platform.url).host}\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n';
    const started = Date.now();
    // 1 KB of the 300 MiB it declares: the answer must not wait for the rest.
    const answer = await rawRequest(p.platform.url, Buffer.concat([Buffer.from(head), Buffer.alloc(1024, 7)]), 10_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(answer.status, answer.text).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', error: expect.any(String) });
    expect(answer.closed).toBe(true);
    // No job was opened for it: the workspace's one import slot is free.
    const small = handMadeArchive({
      'fragment-types.ndjson': [{ id: 't1', key: 'note', name: 'Note', description: '' }],
      'fragments.ndjson': [fragment(1)],
    });
    const next = await importArchive(target.id, small);
    expect(next.status, next.error).toBe('done');
  }, 60_000);

  it('refuses a truncated or damaged archive before writing anything, saying where', async () => {
    const target = await p.workspace(owner);
    const truncated = await importArchive(target.id, archive.slice(0, Math.floor(archive.length / 2)));
    expect(truncated.status).toBe('failed');
    expect(truncated.error).toMatch(/truncated or damaged/);

    // A record broken on line 7, with the manifest's checksum made to match: found by its line.
    const files = unzipSync(archive);
    const lines = strFromU8(files['fragments.ndjson']!).split('\n');
    lines[6] = JSON.stringify({ ...JSON.parse(lines[6]!), tags: 'not-a-list' });
    files['fragments.ndjson'] = strToU8(lines.join('\n'));
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    manifest.entries['fragments.ndjson'].sha256 = createHash('sha256').update(files['fragments.ndjson']).digest('hex');
    files['manifest.json'] = strToU8(JSON.stringify(manifest));
    const broken = await importArchive(target.id, zipSync(files));
    expect(broken.status).toBe('failed');
    expect(broken.error).toBe('fragments.ndjson line 7: tags must be a list of strings');

    // An entry changed behind the manifest's back (its records well-formed: lines are checked as
    // the entry inflates, so a bad line is named before the checksum, which needs the whole entry).
    files['fragments.ndjson'] = unzipSync(archive)['fragments.ndjson']!;
    files['manifest.json'] = strToU8(
      JSON.stringify({
        ...manifest,
        entries: { ...manifest.entries, 'fragments.ndjson': { records: 30, sha256: '0'.repeat(64) } },
      }),
    );
    const tampered = await importArchive(target.id, zipSync(files));
    expect(tampered.error).toBe('fragments.ndjson: checksum does not match the manifest');

    // Records the API would refuse, or the database could not store, past line 1: nothing written.
    const recordsWith = (changes: Record<number, object>) => {
      const list = strFromU8(unzipSync(archive)['fragments.ndjson']!)
        .trim()
        .split('\n')
        .map((l, i) => ({ ...JSON.parse(l), ...changes[i] }));
      const text = list.map((r) => `${JSON.stringify(r)}\n`).join('');
      const entries: Record<string, Uint8Array> = { ...files, 'fragments.ndjson': strToU8(text) };
      const sha256 = createHash('sha256').update(entries['fragments.ndjson']).digest('hex');
      entries['manifest.json'] = strToU8(
        JSON.stringify({ ...manifest, entries: { ...manifest.entries, 'fragments.ndjson': { records: 30, sha256 } } }),
      );
      return zipSync(entries);
    };
    for (const [changes, error] of [
      [{ 1: { content: 'x'.repeat(1_000_001) } }, 'fragments.ndjson line 2: content must be at most 1000000 bytes'],
      [{ 2: { title: 'nul\u0000here' } }, 'fragments.ndjson line 3: title must not contain the NUL character (U+0000)'],
      [
        { 3: { title: '\ud800 lone' } },
        'fragments.ndjson line 4: title must be well-formed Unicode (it contains a lone UTF-16 surrogate)',
      ],
      [
        { 4: { id: JSON.parse(lines[3]!).id, title: 'Same id' } },
        `fragments.ndjson line 5: id ${JSON.parse(lines[3]!).id} is the id of line 4 too`,
      ],
      [
        { 5: { archivedAt: 'not a date' } },
        'fragments.ndjson line 6: archivedAt must be an ISO 8601 date-time or null',
      ],
    ] as const) {
      const refused = await importArchive(target.id, recordsWith(changes));
      expect(refused).toMatchObject({ status: 'failed', error });
    }

    const listed = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${target.id}`, undefined, 200);
    expect(listed.totalCount).toBe(0);
    const res = await fetch(`${p.platform.url}/api/workspaces/${target.id}/imports`, {
      method: 'POST',
      headers: { ...authHeaders(owner.auth), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(415);
  }, 60_000);

  it('fails a zip bomb without inflating it, and never inflates entries the manifest does not list', async () => {
    const target = await p.workspace(owner);
    const files = unzipSync(archive) as Record<string, Uint8Array>;
    const GIB = 1024 * 1024 * 1024;
    const zeros = await deflatedZeros(1.5 * GIB); // about 7 MB
    const bomb = zipWith(files, { name: 'fragments.ndjson', deflated: zeros, declaredSize: 1.5 * GIB });
    const failed = await importArchive(target.id, bomb);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(
      `fragments.ndjson: ${1.5 * GIB} bytes uncompressed, over the import's limit of ${256 * 1024 * 1024} bytes per entry`,
    );
    // The same zeros beside the archive's entries, under a name the manifest does not list: ignored.
    const junk = zipWith(files, { name: 'junk.bin', deflated: zeros, declaredSize: 1.5 * GIB });
    const done = await importArchive(target.id, junk);
    expect(done.status, done.error).toBe('done');
    expect(done.result.fragments).toEqual({ created: 30, updated: 0, unchanged: 0 });
  }, 120_000);

  it('imports records that repeat a key or an id as one after another would', async () => {
    const target = await p.workspace(owner);
    const files = unzipSync(archive);
    const records = strFromU8(files['fragments.ndjson']!)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const keyed = records.find((r) => r.key === 'k-0');
    const unkeyed = records.find((r) => r.key === null && !r.archivedAt);
    // The same key under another id, and an id no fragment has (here every archived id is taken:
    // the source workspace is on this plane): written after the originals. (One id twice is
    // refused: see the damaged archives.)
    const freshId = '2b7e4c1a-8d3f-4e6b-a9c2-5f1d0e3b7a64';
    records.push(
      { ...keyed, id: '7d1c9a52-3f4e-4b8a-9c1d-2e5f6a7b8c9d', content: 'The later k-0' },
      { ...unkeyed, id: freshId, title: 'First with a fresh id' },
    );
    files['fragments.ndjson'] = strToU8(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    manifest.entries['fragments.ndjson'] = {
      records: records.length,
      sha256: createHash('sha256').update(files['fragments.ndjson']).digest('hex'),
    };
    files['manifest.json'] = strToU8(JSON.stringify(manifest));

    const done = await importArchive(target.id, zipSync(files));
    expect(done.status, done.error).toBe('done');
    expect(done.result.fragments).toEqual({ created: 31, updated: 1, unchanged: 0 });
    const byKey = await p.api.ok(
      owner.auth,
      'GET',
      `/api/memory-fragments?workspaceId=${target.id}&key=k-0`,
      undefined,
      200,
    );
    expect(byKey.items.map((f: any) => [f.content, f.version])).toEqual([['The later k-0', 2]]);
    const listed = await p.api.ok(
      owner.auth,
      'GET',
      `/api/memory-fragments?workspaceId=${target.id}&limit=500`,
      undefined,
      200,
    );
    const fresh = listed.items.filter((f: any) => f.title.endsWith('with a fresh id'));
    // It keeps the archived id.
    expect(fresh.map((f: any) => [f.title, f.id === freshId])).toEqual([['First with a fresh id', true]]);
  }, 60_000);

  it('imports a Markdown folder: frontmatter, folders as collections, wiki links in the graph', async () => {
    const target = await p.workspace(owner);
    const note = (text: string) => strToU8(text);
    const vault = zipSync({
      'Projects/Alpha.md': note(
        '---\ntitle: Project Alpha\ntags: [launch, q4]\ntype: Project Plan\nsummary: The alpha plan\n---\n# Alpha\n\nShip it.\n',
      ),
      'Projects/Beta.md': note('Beta depends on [[Alpha]] and on [[Gamma|the gamma note]].\n'),
      'Inbox.md': note('---\ntags: "#idea, later"\n---\nA random idea.\n'),
      '.obsidian/app.json': note('{}'),
      '.obsidian/snippets/hidden.md': note('not a note'),
      'Projects/diagram.png': new Uint8Array([137, 80, 78, 71]),
    });
    const done = await importArchive(target.id, vault, '?format=markdown');
    expect(done).toMatchObject({ status: 'done', error: null });
    expect(done.result.fragments).toEqual({ created: 3, updated: 0, unchanged: 0 });

    const snap = await snapshot(target.id);
    expect(snap.map((f: any) => [f.title, f.type, f.collections])).toEqual([
      ['Alpha', 'project-plan', ['Projects']],
      ['Beta', 'note', ['Projects']],
      ['Inbox', 'note', []],
    ]);
    // Frontmatter tags and summary are kept; the rest is enrichment's.
    expect(snap[0]).toMatchObject({ tags: ['launch', 'q4'], summary: 'The alpha plan' });
    expect(snap[2].tags).toEqual(['idea', 'later']);
    expect(snap[1].content).toBe('Beta depends on [[Alpha]] and on [[Gamma|the gamma note]].\n');
    const types = (await p.api.ok(owner.auth, 'GET', `/api/workspaces/${target.id}/fragment-types`, undefined, 200))
      .items;
    expect(types.find((t: any) => t.key === 'project-plan').name).toBe('Project Plan');

    // Enrichment puts Beta's [[links]] in the graph: Beta links_to Alpha and Gamma.
    await expect
      .poll(
        async () =>
          (await p.api.ok(owner.auth, 'GET', `/api/graph/stats?workspaceId=${target.id}`, undefined, 200))
            .relationsByKind,
        { timeout: 30_000 },
      )
      .toContainEqual({ kind: 'links_to', count: 2 });
    const beta = (
      await p.api.ok(owner.auth, 'GET', `/api/graph/entities?workspaceId=${target.id}&q=Beta&kind=note`, undefined, 200)
    ).items[0];
    const around = await p.api.ok(
      owner.auth,
      'GET',
      `/api/graph/entities/${beta.id}/neighbourhood?workspaceId=${target.id}`,
      undefined,
      200,
    );
    const names = new Map(around.nodes.map((n: any) => [n.id, n.name]));
    expect(
      around.edges
        .filter((e: any) => e.kind === 'links_to')
        .map((e: any) => `${names.get(e.sourceId) ?? beta.name} -> ${names.get(e.targetId) ?? beta.name}`)
        .sort(),
    ).toEqual(['Beta -> Alpha', 'Beta -> Gamma']);

    const again = await importArchive(target.id, vault, '?format=markdown');
    expect(again.result.fragments).toEqual({ created: 0, updated: 0, unchanged: 3 });
    const empty = await importArchive(target.id, zipSync({ 'readme.txt': note('no notes') }), '?format=markdown');
    expect(empty).toMatchObject({ status: 'failed', error: 'the zip holds no Markdown (.md) files' });
  }, 90_000);
});

/**
 * An export's archive is the whole workspace: it is deleted EXPORT_ARCHIVE_TTL_MS after its job
 * finished (2 s here), and the export says so (`expired`; its download 409).
 */
describe('portable workspaces: export archives expire', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;

  beforeAll(async () => {
    p = await startFragmentsPlatform({ EXPORT_ARCHIVE_TTL_MS: '2000' });
  }, 90_000);
  afterAll(async () => p?.stop());

  it('deletes the archive once it expired and answers the download with 409', async () => {
    const owner = await p.person();
    const ws = await p.workspace(owner);
    await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'Kept briefly', content: 'Exported once.' },
      201,
    );
    const { transfer } = await p.api.ok(owner.auth, 'POST', `/api/workspaces/${ws.id}/exports`, undefined, 202);
    const path = `/api/workspaces/${ws.id}/exports/${transfer.id}`;
    let done: any;
    await expect
      .poll(async () => (done = (await p.api.call(owner.auth, 'GET', path)).body.transfer).status, { timeout: 30_000 })
      .toBe('done');
    expect(new Date(done.expiresAt).getTime() - new Date(done.finishedAt).getTime()).toBe(2000);
    const archives = () =>
      readdirSync(join(p.dataDir, 'files', 'transfers', ws.id)).filter((name) => name.endsWith('-export.zip'));
    expect(archives()).toEqual([`${transfer.id}-export.zip`]);
    expect((await fetch(`${p.platform.url}${path}/download`, { headers: authHeaders(owner.auth) })).status).toBe(200);

    await expect
      .poll(async () => (await p.api.call(owner.auth, 'GET', path)).body.transfer.status, { timeout: 30_000 })
      .toBe('expired');
    const expired = (await p.api.call(owner.auth, 'GET', path)).body.transfer;
    expect(expired).toMatchObject({ status: 'expired', expiresAt: null });
    const download = await fetch(`${p.platform.url}${path}/download`, { headers: authHeaders(owner.auth) });
    expect(download.status).toBe(409);
    expect(((await download.json()) as any).error).toMatch(/expired/);
    expect(archives()).toEqual([]);
  }, 60_000);
});

/** Fragment `f<n>` of type `t1` as an archive's fragments.ndjson holds it. */
function fragment(n: number, fields: object = {}) {
  const at = '2026-11-26T00:00:00.000Z';
  return {
    id: `f${n}`,
    fragmentTypeId: 't1',
    title: `Fragment ${n}`,
    content: `Content ${n}`,
    summary: null,
    summarySource: null,
    tags: [],
    enhanceTags: false,
    key: null,
    createdVia: 'api',
    createdAt: at,
    updatedAt: at,
    archivedAt: null,
    ...fields,
  };
}

/** An archive made by hand, its manifest agreeing with its entries (what an export would write). */
function handMadeArchive(records: Record<string, object[]>, fileBytes: Record<string, Uint8Array> = {}): Uint8Array {
  const zipped: Record<string, Uint8Array> = {};
  const entries: Record<string, { records: number; sha256: string }> = {};
  for (const name of ENTRY_NAMES) {
    const list = records[name] ?? [];
    zipped[name] = strToU8(list.map((r) => `${JSON.stringify(r)}\n`).join(''));
    entries[name] = { records: list.length, sha256: createHash('sha256').update(zipped[name]).digest('hex') };
  }
  for (const [id, bytes] of Object.entries(fileBytes)) zipped[`files/${id}`] = bytes;
  zipped['manifest.json'] = strToU8(
    JSON.stringify({
      format: 'kw-workspace-archive',
      version: 1,
      exportedAt: new Date().toISOString(),
      source: { workspaceId: '00000000-0000-4000-8000-000000000000' },
      entries,
    }),
  );
  return zipSync(zipped);
}

/** Imports past a plan's limits: the job fails with the plan's refusal and the place, like the API's. */
describe('portable workspaces: imports within the plan', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  const PLANS = {
    default: 'tiny',
    plans: [{ id: 'tiny', name: 'Tiny', limits: { storageBytes: 2000, fragmentsPerWorkspace: 5 } }],
  };
  const types = [{ id: 't1', key: 'note', name: 'Note', description: '' }];
  const file = (id: string, name: string, bytes: Uint8Array, mimeType: string) => ({
    id,
    name,
    description: '',
    mimeType,
    kind: 'text',
    sizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    fragmentIds: ['f1'],
  });
  const importArchive = async (workspaceId: string, bytes: Uint8Array) => {
    const res = await fetch(`${p.platform.url}/api/workspaces/${workspaceId}/imports`, {
      method: 'POST',
      headers: { ...authHeaders(owner.auth), 'content-type': 'application/zip' },
      body: Buffer.from(bytes),
    });
    expect(res.status).toBe(202);
    const path = `/api/workspaces/${workspaceId}/imports/${((await res.json()) as any).transfer.id}`;
    let last: any;
    await expect
      .poll(async () => (last = (await p.api.call(owner.auth, 'GET', path)).body.transfer).status, { timeout: 60_000 })
      .not.toBe('processing');
    return last;
  };

  beforeAll(async () => {
    p = await startFragmentsPlatform({ PLANS: JSON.stringify(PLANS) });
    owner = await p.person();
  }, 90_000);
  afterAll(async () => p?.stop());

  it('records a failed import with the progress and counts it wrote', async () => {
    const ws = await p.workspace(owner);
    const archive = handMadeArchive({
      'fragment-types.ndjson': types,
      'fragments.ndjson': Array.from({ length: 8 }, (_, i) => fragment(i + 1)),
    });
    const failed = await importArchive(ws.id, archive);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('PLAN_LIMIT_REACHED');
    const listed = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200);
    expect(listed.items).toHaveLength(5);
    // The type and the five fragments the plan admitted: written, so counted.
    expect(failed.progress).toMatchObject({ done: 6, total: 9 });
    expect(failed.result).toMatchObject({ fragmentTypes: 1, fragments: { created: 5, updated: 0, unchanged: 0 } });
  }, 60_000);

  it("fails a Markdown folder past the plan's fragments naming the note it stopped at", async () => {
    const ws = await p.workspace(owner);
    const vault = zipSync(
      Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`Notes/n${i}.md`, strToU8(`Note ${i}`)])),
    );
    const res = await fetch(`${p.platform.url}/api/workspaces/${ws.id}/imports?format=markdown`, {
      method: 'POST',
      headers: { ...authHeaders(owner.auth), 'content-type': 'application/zip' },
      body: Buffer.from(vault),
    });
    expect(res.status).toBe(202);
    const path = `/api/workspaces/${ws.id}/imports/${((await res.json()) as any).transfer.id}`;
    let failed: any;
    await expect
      .poll(async () => (failed = (await p.api.call(owner.auth, 'GET', path)).body.transfer).status, {
        timeout: 60_000,
      })
      .not.toBe('processing');
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'Notes/n5.md: The plan tiny allows 5 fragments per workspace (PLAN_LIMIT_REACHED fragmentsPerWorkspace)',
      result: { fragments: { created: 5, updated: 0, unchanged: 0 } },
    });
  }, 60_000);

  it("fails files past the plan's storage with PLAN_LIMIT_REACHED, naming the file's line", async () => {
    const ws = await p.workspace(owner);
    const small = strToU8('<p>plain text, whatever the archive says</p>\n');
    const big = strToU8('x'.repeat(3023));
    const archive = handMadeArchive(
      {
        'fragment-types.ndjson': types,
        'fragments.ndjson': [fragment(1)],
        'files.ndjson': [file('a', 'a.txt', small, 'text/html'), file('b', 'b.txt', big, 'text/plain')],
      },
      { a: small, b: big },
    );
    const failed = await importArchive(ws.id, archive);
    expect(failed).toMatchObject({
      status: 'failed',
      error:
        "files.ndjson line 2: The file is larger than the storage the workspace's plan has left (PLAN_LIMIT_REACHED storageBytes)",
    });
    // The file written before it is made exactly as an upload: its type from its bytes.
    const holder = (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200))
      .items[0];
    const attached = await p.api.ok(owner.auth, 'GET', `/api/fragments/${holder.id}/files`, undefined, 200);
    expect(attached.items.map((f: any) => [f.name, f.mimeType])).toEqual([['a.txt', 'text/plain']]);
  }, 60_000);
});

/**
 * What a black-box tester sent (docs/portable-workspaces.md, "Import rules", "Markdown folders",
 * "What an import inflates"): file ids storage cannot take, bytes that are not UTF-8, a zip sent
 * as JSON, notes past the fragment limits, and archives that inflate far beyond their size. Here
 * the archive's entries may unpack to 64 MiB in all (IMPORT_MAX_INFLATED_BYTES), so a refusal
 * costs little.
 */
describe('portable workspaces: hostile archives and lenient Markdown folders', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  const MIB = 1024 * 1024;
  const types = [{ id: 't1', key: 'note', name: 'Note', description: '' }];
  const post = (workspaceId: string, bytes: Uint8Array, query = '', contentType = 'application/zip', as = owner) =>
    fetch(`${p.platform.url}/api/workspaces/${workspaceId}/imports${query}`, {
      method: 'POST',
      headers: { ...authHeaders(as.auth), 'content-type': contentType },
      body: Buffer.from(bytes),
    });
  const importArchive = async (workspaceId: string, bytes: Uint8Array, query = '') => {
    const res = await post(workspaceId, bytes, query);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(202);
    const path = `/api/workspaces/${workspaceId}/imports/${body.transfer.id}`;
    let last: any;
    await expect
      .poll(async () => (last = (await p.api.call(owner.auth, 'GET', path)).body.transfer).status, {
        timeout: 60_000,
        interval: 100,
      })
      .not.toBe('processing');
    return last;
  };
  const fragmentCount = async (workspaceId: string) =>
    (
      await p.api.ok(
        owner.auth,
        'GET',
        `/api/memory-fragments?workspaceId=${workspaceId}&includeArchived=true`,
        undefined,
        200,
      )
    ).totalCount;
  /** Peak resident memory of the platform's process so far (Linux), in bytes. */
  const peakRss = () =>
    Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.platform.child.pid}/status`, 'utf8'))![1]) * 1024;

  beforeAll(async () => {
    p = await startFragmentsPlatform({ IMPORT_MAX_INFLATED_BYTES: String(64 * MIB) });
    owner = await p.person();
  }, 90_000);
  afterAll(async () => p?.stop());

  it('stops an archive that inflates far beyond its size at its first line, or before inflating it', async () => {
    const ws = await p.workspace(owner);
    const before = peakRss();
    // One line of 48 MiB of spaces (about 48 KB deflated), within the 64 MiB the archive may unpack to.
    const spaces = Buffer.alloc(48 * MIB, 0x20);
    spaces[spaces.length - 1] = 0x0a;
    const records = { 'fragment-types.ndjson': types, 'fragments.ndjson': [fragment(1)] };
    const files = unzipSync(handMadeArchive(records));
    files['collections.ndjson'] = spaces;
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    manifest.entries['collections.ndjson'].sha256 = createHash('sha256').update(spaces).digest('hex');
    files['manifest.json'] = strToU8(JSON.stringify(manifest));
    const long = await importArchive(ws.id, zipSync(files));
    expect(long).toMatchObject({
      status: 'failed',
      error: `collections.ndjson line 1: longer than ${16 * MIB} bytes, the most one record may take`,
    });
    // Four entries declaring 24 MiB each (the tester's archive, smaller): refused by what they declare.
    for (const name of [
      'collections.ndjson',
      'collection-fragments.ndjson',
      'graph-entities.ndjson',
      'graph-relations.ndjson',
    ]) {
      files[name] = spaces.subarray(0, 24 * MIB);
      manifest.entries[name].sha256 = createHash('sha256').update(files[name]).digest('hex');
    }
    files['manifest.json'] = strToU8(JSON.stringify(manifest));
    const large = await importArchive(ws.id, zipSync(files));
    expect(large).toMatchObject({
      status: 'failed',
      error: `archive too large: its entries unpack to more than the import's limit of ${64 * MIB} bytes in all (IMPORT_MAX_INFLATED_BYTES)`,
    });
    expect(await fragmentCount(ws.id)).toBe(0);
    // The process is still there, and never held the inflated entries (a generous bound: they are 144 MiB).
    expect((await fetch(`${p.platform.url}/api/health`)).status).toBe(200);
    expect(peakRss() - before).toBeLessThan(64 * MIB);
  }, 60_000);

  it('refuses a membership given twice before any write, naming both lines, in a few seconds', async () => {
    const ws = await p.workspace(owner);
    const line = { collectionId: 'c1', fragmentId: 'f1' };
    const archive = handMadeArchive({
      'fragment-types.ndjson': types,
      'fragments.ndjson': [fragment(1), fragment(2)],
      'collections.ndjson': [{ id: 'c1', name: 'One', description: '' }],
      // The tester's archive: one membership 200,000 times (75 KB zipped), which took 45 s to add once.
      'collection-fragments.ndjson': [{ collectionId: 'c1', fragmentId: 'f2' }, ...Array(200_000).fill(line)],
    });
    const started = Date.now();
    const refused = await importArchive(ws.id, archive);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(refused).toMatchObject({
      status: 'failed',
      error: 'collection-fragments.ndjson line 3: the membership of line 2 again',
    });
    expect(await fragmentCount(ws.id)).toBe(0);
  }, 60_000);

  it('refuses a file id storage cannot take before any write, naming its line in files.ndjson', async () => {
    const bytes = strToU8('hello');
    const archiveWithFile = (id: string) =>
      handMadeArchive(
        {
          'fragment-types.ndjson': types,
          'fragments.ndjson': [fragment(1)],
          'files.ndjson': [
            {
              id,
              name: 'a.txt',
              description: '',
              mimeType: 'text/plain',
              kind: 'text',
              sizeBytes: bytes.length,
              sha256: createHash('sha256').update(bytes).digest('hex'),
              fragmentIds: ['f1'],
            },
          ],
        },
        { [id]: bytes },
      );
    for (const id of ['../x', 'a b', '.', 'x'.repeat(300), 'a\\b']) {
      const ws = await p.workspace(owner);
      const failed = await importArchive(ws.id, archiveWithFile(id));
      expect(failed.status, id).toBe('failed');
      expect(failed.error, id).toMatch(/^files\.ndjson line 1: id must be /);
      expect(await fragmentCount(ws.id), id).toBe(0);
    }
    // A path-like id storage takes is imported.
    const ws = await p.workspace(owner);
    const done = await importArchive(ws.id, archiveWithFile('a/b'));
    expect(done.status, done.error).toBe('done');
    expect(done.result.files).toEqual({ created: 1, unchanged: 0 });
  }, 60_000);

  it('refuses entries and notes that are not UTF-8, naming the line or the path', async () => {
    const ws = await p.workspace(owner);
    const archive = unzipSync(
      handMadeArchive({
        'fragment-types.ndjson': types,
        'fragments.ndjson': [1, 2, 3].map((n) => fragment(n, { content: 'cafX!' })),
      }),
    );
    // Line 2's content becomes "caf\xE9!": Latin-1, not UTF-8.
    const text = Buffer.from(archive['fragments.ndjson']!);
    const second = text.indexOf('cafX', text.indexOf('\n') + 1);
    text[second + 3] = 0xe9;
    archive['fragments.ndjson'] = text;
    const manifest = JSON.parse(strFromU8(archive['manifest.json']!));
    manifest.entries['fragments.ndjson'].sha256 = createHash('sha256').update(text).digest('hex');
    archive['manifest.json'] = strToU8(JSON.stringify(manifest));
    const failed = await importArchive(ws.id, zipSync(archive));
    expect(failed).toMatchObject({ status: 'failed', error: 'fragments.ndjson line 2: is not UTF-8 text' });

    const notes = zipSync({
      'ok.md': strToU8('fine\n'),
      'Old/latin.md': new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    });
    const refused = await importArchive(ws.id, notes, '?format=markdown');
    expect(refused).toMatchObject({ status: 'failed', error: 'Old/latin.md: is not UTF-8 text' });
    expect(await fragmentCount(ws.id)).toBe(0);
  }, 60_000);

  it('answers 415 to an archive sent as application/json, once the caller may import', async () => {
    const ws = await p.workspace(owner);
    const res = await post(ws.id, handMadeArchive({}), '', 'application/json');
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    // Who may not import learns nothing of the body: another account's workspace stays 404.
    const stranger = await post(ws.id, strToU8('{}'), '', 'application/json', await p.person());
    expect(stranger.status).toBe(404);
  });

  it('imports a Markdown note past the fragment limits cut to them, listing each cut; folders stay apart', async () => {
    const ws = await p.workspace(owner);
    const deep = Array.from({ length: 30 }, (_, i) => `folder${i}`).join('/');
    const longName = `${'n'.repeat(600)}.md`;
    const vault = zipSync({
      'tags.md': strToU8(`---\ntags: [${Array.from({ length: 51 }, (_, i) => `t${i}`).join(', ')}]\n---\nbody`),
      'tag.md': strToU8(`---\ntags: [ok, ${'x'.repeat(101)}]\n---\nbody`),
      [longName]: strToU8('long'),
      'summary.md': strToU8(`---\nsummary: ${'s'.repeat(10_001)}\n---\nbody`),
      [`${deep}/A/one.md`]: strToU8('one'),
      [`${deep}/B/two.md`]: strToU8('two'),
    });
    const done = await importArchive(ws.id, vault, '?format=markdown');
    expect(done.status, done.error).toBe('done');
    expect(done.result.fragments).toEqual({ created: 6, updated: 0, unchanged: 0 });
    expect(done.result.trimmed).toEqual([
      { entry: `${deep}/A`, field: 'collection name', limit: 200 },
      { entry: `${deep}/B`, field: 'collection name', limit: 200 },
      { entry: longName, field: 'title', limit: 500 },
      { entry: 'summary.md', field: 'summary', limit: 10_000 },
      { entry: 'tag.md', field: 'tag', limit: 100 },
      { entry: 'tags.md', field: 'tags', limit: 50 },
    ]);
    const items = (
      await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}&limit=100`, undefined, 200)
    ).items;
    const byTitle = new Map(items.map((f: any) => [f.title, f]));
    expect((byTitle.get('tags') as any).tags).toHaveLength(50);
    expect((byTitle.get('tag') as any).tags.map((t: string) => t.length)).toEqual([2, 100]);
    expect((byTitle.get('summary') as any).summary).toHaveLength(10_000);
    expect(byTitle.has('n'.repeat(500))).toBe(true);
    const names = (await p.api.ok(owner.auth, 'GET', `/api/workspaces/${ws.id}/collections`, undefined, 200)).items.map(
      (c: any) => c.name as string,
    );
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    for (const name of names) expect([...name].length).toBeLessThanOrEqual(200);
  }, 60_000);
});

/**
 * A valid archive whose fragments hold far more text than the zip (docs/portable-workspaces.md,
 * "What an import holds"): checked whole before any write, then read again and written as it is
 * read, so the platform holds a batch of records at a time, not the archive's content. Its heap
 * is capped below what the content takes: an import holding every record dies of it.
 */
describe('portable workspaces: a large archive', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  const MIB = 1024 * 1024;
  /** Records of near 1,000,000 bytes each: about 103 MiB of text, deflating to well under 1 MiB. */
  const COUNT = 108;
  /** The platform's heap: room for itself (under 100 MiB) and a batch, not for the content as well. */
  const HEAP_MIB = 160;
  /** Resident memory of the platform's process (Linux): now (VmRSS) or its peak so far (VmHWM), in bytes. */
  const memory = (field: 'VmRSS' | 'VmHWM') =>
    Number(
      new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${p.platform.child.pid}/status`, 'utf8'))![1],
    ) * 1024;
  const alive = () => p.platform.child.exitCode === null && p.platform.child.signalCode === null;

  beforeAll(async () => {
    p = await startFragmentsPlatform({ NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}` });
    owner = await p.person();
  }, 90_000);
  afterAll(async () => p?.stop());

  it('imports fragments holding over 100 MiB of text without holding that text', async () => {
    const ws = await p.workspace(owner);
    const types = [{ id: 't1', key: 'note', name: 'Note', description: '' }];
    // Records of one key, which the workspace holds already: each is read, checked, compared and
    // found unchanged, which is an import's whole work but the write (the test is about what the
    // import holds, not about a hundred writes of 1 MB and their enrichment).
    const paragraph = 'The quick brown fox jumps over the lazy dog; portable workspaces travel light. ';
    const content = paragraph.repeat(Math.floor(999_000 / paragraph.length));
    const same = { title: 'Big note', key: 'big', content, summary: 'Big', tags: ['big'] };
    const { fragment: held } = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, ...same },
      201,
    );
    const status = async () =>
      (await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${held.id}`, undefined, 200)).fragment.status;
    await expect.poll(status, { timeout: 30_000 }).toBe('published');
    const fragments = Array.from({ length: COUNT }, (_, i) => fragment(i + 1, { ...same, enhanceTags: true }));
    const archive = handMadeArchive({ 'fragment-types.ndjson': types, 'fragments.ndjson': fragments });
    const contentBytes = COUNT * Buffer.byteLength(content);
    expect(contentBytes).toBeGreaterThan(100 * MIB);
    expect(archive.length).toBeLessThan(MIB);

    const before = memory('VmRSS');
    const res = await fetch(`${p.platform.url}/api/workspaces/${ws.id}/imports`, {
      method: 'POST',
      headers: { ...authHeaders(owner.auth), 'content-type': 'application/zip' },
      body: Buffer.from(archive),
    });
    expect(res.status).toBe(202);
    const path = `/api/workspaces/${ws.id}/imports/${((await res.json()) as any).transfer.id}`;
    let done: any;
    await expect
      .poll(
        async () => (alive() ? (done = (await p.api.call(owner.auth, 'GET', path)).body.transfer).status : 'exited'),
        { timeout: 60_000, interval: 200 },
      )
      .not.toBe('processing');
    expect(alive(), 'the platform process died (out of memory) importing the archive').toBe(true);
    const grew = memory('VmHWM') - before;
    expect(done.status, done.error).toBe('done');
    expect(done.progress).toMatchObject({ done: COUNT + 1, total: COUNT + 1 });
    expect(done.result.fragments).toEqual({ created: 0, updated: 0, unchanged: COUNT });
    const listed = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200);
    expect(listed.items.map((f: any) => [f.id, f.content.length])).toEqual([[held.id, content.length]]);
    // The heap cap is what decides (holding the text, the process dies); resident memory, which
    // also counts buffers outside the heap and garbage not yet collected, grew by less than the
    // text it would have held (about 45 MiB seen on a loaded machine).
    expect(grew, `peak grew ${(grew / MIB).toFixed(0)} MiB`).toBeLessThan(contentBytes);
  }, 90_000);
});
