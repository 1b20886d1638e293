import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, createToken } from '../../support/accounts.js';
import type { Person } from '../fragments/fragments-fixture.js';
import { call, connectMcp } from '../mcp/mcp-fixture.js';
import { SAMPLES, fixture, sha256, startFilesPlatform } from './files-fixture.js';

const CAP = 4 * 1024 * 1024;

/**
 * Files through real HTTP on the embedded platform: multipart uploads of every supported kind
 * (undici FormData and a hand-built body), processing to `ready`, search by a word only the
 * file holds, byte-exact downloads with ranges and ETags, metadata, deletion, attachments,
 * the cap, and files other tenants may not see.
 */
describe('files', () => {
  let p: Awaited<ReturnType<typeof startFilesPlatform>>;
  let owner: Person;
  let stranger: Person;
  let ws: string;
  let noteType: string;
  let dataDir: string;
  const blobsOf = (workspaceId: string) => {
    const dir = path.join(dataDir, 'files', 'files', workspaceId);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  beforeAll(async () => {
    p = await startFilesPlatform({ FILES_MAX_BYTES: String(CAP) });
    dataDir = p.dataDir;
    owner = await p.person();
    stranger = await p.person();
    ({ id: ws, noteTypeId: noteType } = await p.workspace(owner));
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  describe.each(SAMPLES)('$file', (sample) => {
    let fileId: string;
    const bytes = fixture(sample.file);

    it('uploads as multipart, answers 201 processing with the sniffed kind and the SHA-256', async () => {
      const res = await p.upload(owner.auth, { workspaceId: ws }, [{ name: sample.file, bytes, mime: sample.mime }]);
      expect(res.status, res.text).toBe(201);
      expect(res.body.file).toMatchObject({
        workspaceId: ws,
        name: sample.file,
        kind: sample.kind,
        sizeBytes: bytes.length,
        sha256: sha256(bytes),
        status: 'processing',
      });
      expect(res.body.file).not.toHaveProperty('downloadUrl');
      expect(res.body.file).not.toHaveProperty('storageKey');
      fileId = res.body.file.id;
    });

    it('is processed to ready, and search finds the word only this file holds', async () => {
      const status = await p.settled(owner.auth, fileId);
      expect(status, JSON.stringify(status)).toMatchObject({ status: 'ready' });
      expect(status.chunkCount).toBeGreaterThan(0);
      const found = await p.api.ok(
        owner.auth,
        'GET',
        `/api/files/search?workspaceId=${ws}&q=${sample.word}&mode=keyword`,
        undefined,
        200,
      );
      expect(found.items.map((h: any) => h.file.id)).toEqual([fileId]);
      expect(found.items[0].matched).toEqual(['content']);
      expect(found.items[0].snippet.toLowerCase()).toContain(sample.word);
      // Hybrid (the default) may add files close in meaning; the one holding the word leads.
      const hybrid = await p.api.ok(
        owner.auth,
        'GET',
        `/api/files/search?workspaceId=${ws}&q=${sample.word}`,
        undefined,
        200,
      );
      expect(hybrid.items[0].file.id).toBe(fileId);
      expect(hybrid.items[0].matched).toContain('content');
    });

    it('downloads the identical bytes, whole and as a range, with its ETag', async () => {
      const whole = await p.download(owner.auth, `/api/files/${fileId}/download`);
      expect(whole.res.status).toBe(200);
      expect(sha256(whole.bytes)).toBe(sha256(bytes));
      expect(whole.res.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
      expect(whole.res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${sample.file}`);
      expect(whole.res.headers.get('x-content-type-options')).toBe('nosniff');
      const part = await p.download(owner.auth, `/api/files/${fileId}/download`, { range: 'bytes=5-20' });
      expect(part.res.status).toBe(206);
      expect(part.res.headers.get('content-range')).toBe(`bytes 5-20/${bytes.length}`);
      expect(Buffer.from(part.bytes).equals(bytes.subarray(5, 21))).toBe(true);
      const past = await p.download(owner.auth, `/api/files/${fileId}/download`, { range: `bytes=${bytes.length}-` });
      expect(past.res.status).toBe(416);
      expect(past.res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
      expect(JSON.parse(Buffer.from(past.bytes).toString())).toMatchObject({ code: 'RANGE_NOT_SATISFIABLE' });
      // If-Range: the range only while the client's copy is this one (its strong ETag), else the whole file.
      const etag = `"${sha256(bytes)}"`;
      const kept = await p.download(owner.auth, `/api/files/${fileId}/download`, {
        range: 'bytes=5-20',
        'if-range': etag,
      });
      expect(kept.res.status).toBe(206);
      for (const stale of ['"not-the-etag"', `W/${etag}`, 'Sat, 01 Jan 2000 00:00:00 GMT']) {
        const changed = await p.download(owner.auth, `/api/files/${fileId}/download`, {
          range: 'bytes=5-20',
          'if-range': stale,
        });
        expect(changed.res.status, stale).toBe(200);
        expect(sha256(changed.bytes)).toBe(sha256(bytes));
      }
      const again = await p.download(owner.auth, `/api/files/${fileId}/download`, {
        'if-none-match': `"${sha256(bytes)}"`,
      });
      expect(again.res.status).toBe(304);
    });
  });

  it('reads UTF-16 text with a byte order mark as text, and leaves Latin-1 as other', async () => {
    const space = (await p.workspace(owner)).id;
    const words = 'Notepad saved the ortolanquince in Unicode: caf\u00e9 \u{1F600}.';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(words, 'utf16le')]);
    const be = Buffer.from(le.subarray(2)).swap16();
    const files = [
      { name: 'notepad-le.txt', bytes: le },
      { name: 'notepad-be.csv', bytes: Buffer.concat([Buffer.from([0xfe, 0xff]), be]) },
      { name: 'latin1.txt', bytes: Buffer.from('caf\u00e9 latinquince', 'latin1') },
    ];
    const up = await p.upload(owner.auth, { workspaceId: space }, files);
    expect(up.status, up.text).toBe(201);
    const [leFile, beFile, latin] = up.body.files;
    expect(leFile).toMatchObject({ kind: 'text', mimeType: 'text/plain' });
    expect(beFile).toMatchObject({ kind: 'csv', mimeType: 'text/csv' });
    expect(latin).toMatchObject({ kind: 'other', mimeType: 'application/octet-stream' });
    for (const file of [leFile, beFile]) {
      expect(await p.settled(owner.auth, file.id)).toMatchObject({ status: 'ready', chunkCount: 1 });
      const chunks = await p.api.ok(owner.auth, 'GET', `/api/files/${file.id}/chunks`, undefined, 200);
      expect(chunks.items[0].text).toBe(words);
    }
    const found = await p.api.ok(
      owner.auth,
      'GET',
      `/api/files/search?workspaceId=${space}&q=ortolanquince&mode=keyword`,
      undefined,
      200,
    );
    expect(found.items.map((hit: any) => (hit.file ?? hit).name).sort()).toEqual(['notepad-be.csv', 'notepad-le.txt']);
    // The bytes are kept as sent: the download is the file.
    const dl = await p.download(owner.auth, `/api/files/${leFile.id}/download`);
    expect(Buffer.from(dl.bytes).equals(le)).toBe(true);
  });

  it('answers 416 to any range of an empty file, a suffix range included, on the download and the byte proxy', async () => {
    const res = await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'empty.txt', bytes: Buffer.alloc(0) }]);
    expect(res.status, res.text).toBe(201);
    const id = res.body.file.id;
    for (const path of [`/api/files/${id}/download`, `/api/workspace-files/${id}/bytes`]) {
      for (const range of ['bytes=-5', 'bytes=0-']) {
        const got = await p.download(owner.auth, path, { range });
        expect(got.res.status, `${path} ${range}`).toBe(416);
        expect(got.res.headers.get('content-range')).toBe('bytes */0');
        expect(JSON.parse(Buffer.from(got.bytes).toString())).toMatchObject({ code: 'RANGE_NOT_SATISFIABLE' });
      }
      const whole = await p.download(owner.auth, path);
      expect(whole.res.status).toBe(200);
      expect(whole.bytes.byteLength).toBe(0);
    }
  });

  it('answers 304 to If-None-Match with *, a weak tag or a list holding the ETag, on the download and the byte proxy', async () => {
    const bytes = Buffer.from('conditional get');
    const res = await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'etag.txt', bytes }]);
    expect(res.status, res.text).toBe(201);
    const etag = `"${sha256(bytes)}"`;
    for (const path of [`/api/files/${res.body.file.id}/download`, `/api/workspace-files/${res.body.file.id}/bytes`]) {
      for (const header of [etag, '*', `W/${etag}`, `"other", ${etag}`]) {
        const got = await p.download(owner.auth, path, { 'if-none-match': header });
        expect(got.res.status, `${path} ${header}`).toBe(304);
        expect(got.res.headers.get('etag')).toBe(etag);
        expect(got.bytes.byteLength).toBe(0);
      }
      const other = await p.download(owner.auth, path, { 'if-none-match': '"other", W/"another"' });
      expect(other.res.status).toBe(200);
      expect(Buffer.from(other.bytes).equals(bytes)).toBe(true);
    }
  });

  it('shows file content in the workspace search, each hit saying whether it is a fragment or a file', async () => {
    await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws, fragmentTypeId: noteType, title: 'About zanzibarite', content: 'A note on zanzibarite.' },
      201,
    );
    const pdf = SAMPLES[0];
    await expect
      .poll(async () => {
        const body = await p.api.ok(owner.auth, 'GET', `/api/search?workspaceId=${ws}&q=${pdf.word}`, undefined, 200);
        return body.results.length;
      })
      .toBeGreaterThan(0);
    const body = await p.api.ok(owner.auth, 'GET', `/api/search?workspaceId=${ws}&q=${pdf.word}`, undefined, 200);
    expect(body.results.every((h: any) => h.kind === 'fragment')).toBe(true);
    // Files beside the results are matched by their words (the files search in keyword mode).
    expect(body.files).toEqual([
      expect.objectContaining({ kind: 'file', name: pdf.file, fileKind: 'pdf', matchedBy: ['content'] }),
    ]);
    expect(body.files[0].snippet.toLowerCase()).toContain(pdf.word);
    // A passage longer than the files search takes (500 characters) asks it with its opening.
    const passage = `${pdf.word} ${'and a long pasted passage about other things '.repeat(30)}`.slice(0, 1_500);
    const long = await p.api.ok(
      owner.auth,
      'GET',
      `/api/search?workspaceId=${ws}&q=${encodeURIComponent(passage)}`,
      undefined,
      200,
    );
    expect(long.files).toEqual([expect.objectContaining({ kind: 'file', name: pdf.file })]);
    // Files have no type, tags or collection: with those filters, none; nor on later pages.
    const filtered = await p.api.ok(
      owner.auth,
      'GET',
      `/api/search?workspaceId=${ws}&q=${pdf.word}&types=note`,
      undefined,
      200,
    );
    expect(filtered.files).toEqual([]);
    const later = await p.api.ok(
      owner.auth,
      'GET',
      `/api/search?workspaceId=${ws}&q=${pdf.word}&offset=1`,
      undefined,
      200,
    );
    expect(later.files).toEqual([]);
    // A token that may search but not read files sees the fragments only.
    const { token } = await createToken(p.base, owner.auth, { scopes: ['search:read', 'fragments:read'] });
    const narrow = await p.api.ok(token, 'GET', `/api/search?workspaceId=${ws}&q=${pdf.word}`, undefined, 200);
    expect(narrow.results.length).toBeGreaterThan(0);
    expect(narrow.files).toEqual([]);
  });

  it('shows files in the global search from every workspace the caller may read files of, and no one else’s', async () => {
    const [{ id: first }, { id: second }, { id: theirs }] = [
      await p.workspace(owner),
      await p.workspace(owner),
      await p.workspace(stranger),
    ];
    const text = (name: string) => Buffer.from(`The ${name} survey found wombatite in the northern seam.`);
    for (const [who, workspaceId, name] of [
      [owner, first, 'alpha-survey.txt'],
      [owner, second, 'beta-survey.txt'],
      [stranger, theirs, 'gamma-survey.txt'],
    ] as const) {
      const res = await p.upload(who.auth, { workspaceId }, [{ name, bytes: text(name), mime: 'text/plain' }]);
      expect(res.status, res.text).toBe(201);
      await p.settled(who.auth, res.body.file.id);
    }
    const global = (auth: string, params = '') =>
      p.api.ok(auth, 'GET', `/api/search/global?q=wombatite${params}`, undefined, 200);
    const named = (body: any) => body.files.map((f: any) => [f.name, f.workspaceId]).sort();

    const mine = await global(owner.auth);
    expect(named(mine)).toEqual([
      ['alpha-survey.txt', first],
      ['beta-survey.txt', second],
    ]);
    expect(mine.files[0]).toMatchObject({ kind: 'file', matchedBy: ['content'], chunk: 0 });
    expect(mine.files[0].snippet).toContain('wombatite');
    expect(named(await global(stranger.auth))).toEqual([['gamma-survey.txt', theirs]]);
    // As beside a workspace search: not past the first page, not with fragment filters.
    expect((await global(owner.auth, '&offset=5')).files).toEqual([]);
    expect((await global(owner.auth, '&tags=geology')).files).toEqual([]);
    // A token that may search every workspace but not read files sees no files.
    const { token } = await createToken(p.base, owner.auth, { scopes: ['search:read', 'workspaces:read'] });
    const narrow = await global(token);
    expect(narrow.workspaceCount).toBeGreaterThanOrEqual(2);
    expect(narrow.files).toEqual([]);
    // An archived workspace is not searched, its files neither.
    await p.api.ok(owner.auth, 'DELETE', `/api/workspaces/${second}`, undefined, 200);
    expect(named(await global(owner.auth))).toEqual([['alpha-survey.txt', first]]);

    // The MCP search tool without a workspace names the same files.
    const mcp = await connectMcp(p.base, owner.auth);
    try {
      const found = await call(mcp, 'search', { query: 'wombatite' });
      expect(found.isError, found.text).toBe(false);
      expect(found.data.files.map((f: any) => [f.name, f.workspaceId])).toEqual([['alpha-survey.txt', first]]);
    } finally {
      await mcp.close();
    }
  });

  it('answers a question with the file holding its rare words first, whatever the common ones repeat', async () => {
    const { id: questions } = await p.workspace(owner);
    const common =
      'The team report for the office. The team met and the report was read; the office team filed the report.';
    const res = await p.upload(owner.auth, { workspaceId: questions }, [
      { name: 'minutes-1.txt', bytes: Buffer.from(common), mime: 'text/plain' },
      { name: 'minutes-2.txt', bytes: Buffer.from(`${common} The team thanked the office.`), mime: 'text/plain' },
      {
        name: 'trial.txt',
        bytes: Buffer.from('Vitamin D lowered the fracture risk of older adults in the trial.'),
        mime: 'text/plain',
      },
      { name: 'minutes-3.txt', bytes: Buffer.from(`${common} ${common}`), mime: 'text/plain' },
    ]);
    expect(res.status, res.text).toBe(201);
    for (const file of res.body.files) expect(await p.settled(owner.auth, file.id)).toMatchObject({ status: 'ready' });
    const q = encodeURIComponent('does the team report say that vitamin D helps?');
    const found = await p.api.ok(
      owner.auth,
      'GET',
      `/api/files/search?workspaceId=${questions}&q=${q}&mode=keyword`,
      undefined,
      200,
    );
    // The minutes hold two of the question's words, three times each; the trial holds one, once.
    // But three of the four files say "team" and "report", one says "vitamin": BM25 ranks the trial
    // first, where a rank without word rarity (ts_rank, the search before) put it last.
    expect(found.items.map((h: any) => h.file.name)[0]).toBe('trial.txt');
    expect(found.totalCount).toBe(4);
    expect(found.items[0]).toMatchObject({ matched: ['content'] });
    expect(found.items[0].snippet).toContain('<mark>Vitamin</mark>');
    expect(found.items[0].score).toBeGreaterThan(found.items[1].score);
    // Scores are BM25 and decrease down the page.
    const scores = found.items.map((h: any) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Hybrid, the default, ranks the trial first too: the words' ranking has most of the weight.
    const hybrid = await p.api.ok(
      owner.auth,
      'GET',
      `/api/files/search?workspaceId=${questions}&q=${q}`,
      undefined,
      200,
    );
    expect(hybrid.items[0].file.name).toBe('trial.txt');
    // A name match still comes first, before any content match.
    const named = await p.api.ok(
      owner.auth,
      'GET',
      `/api/files/search?workspaceId=${questions}&q=${encodeURIComponent('minutes-3')}`,
      undefined,
      200,
    );
    expect(named.items.map((h: any) => [h.file.name, h.matched])).toEqual([['minutes-3.txt', ['name']]]);
    // Stop words alone match no text.
    const empty = await p.api.ok(
      owner.auth,
      'GET',
      `/api/files/search?workspaceId=${questions}&q=the%20and%20of`,
      undefined,
      200,
    );
    expect(empty).toMatchObject({ items: [], totalCount: 0 });
  });

  it("lists a workspace's files newest first, of one status or kind, paged", async () => {
    const { id: listed } = await p.workspace(owner);
    const ids: string[] = [];
    // One upload after the other: each file is newer than the one before.
    for (const [name, bytes] of [
      ['a.txt', fixture('sample.txt')],
      ['b.png', fixture('sample.png')],
      ['c.md', fixture('sample.md')],
    ] as const) {
      const res = await p.upload(owner.auth, { workspaceId: listed }, [{ name, bytes }]);
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.file.id);
      await p.settled(owner.auth, res.body.file.id);
    }
    const list = (query: string) => p.api.call(owner.auth, 'GET', `/api/files?workspaceId=${listed}${query}`);
    const all = (await list('')).body;
    expect(all).toMatchObject({ success: true, count: 3, totalCount: 3, limit: 20, offset: 0 });
    expect(all.items.map((f: any) => f.name)).toEqual(['c.md', 'b.png', 'a.txt']);
    expect(all.items[0]).toMatchObject({ id: ids[2], status: 'ready', kind: 'markdown' });
    expect(all.items[0]).not.toHaveProperty('storageKey');
    expect((await list('&kind=image')).body.items.map((f: any) => f.name)).toEqual(['b.png']);
    expect((await list('&status=ready')).body.totalCount).toBe(3);
    expect((await list('&status=failed')).body).toMatchObject({ items: [], totalCount: 0 });
    const page = (await list('&limit=2&offset=1')).body;
    expect(page).toMatchObject({ count: 2, totalCount: 3, limit: 2, offset: 1 });
    expect(page.items.map((f: any) => f.name)).toEqual(['b.png', 'a.txt']);
    // A deleted file is gone from the list.
    await p.api.ok(owner.auth, 'DELETE', `/api/files/${ids[1]}`, undefined, 200);
    expect((await list('')).body.items.map((f: any) => f.name)).toEqual(['c.md', 'a.txt']);
    for (const bad of ['&status=uploading', '&kind=exe', '&limit=101', '&offset=-1']) {
      const refused = await list(bad);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.code, bad).toBe('VALIDATION_FAILED');
    }
    const noWorkspace = await p.api.call(owner.auth, 'GET', '/api/files');
    expect(noWorkspace.status).toBe(400);
    // Another tenant: the workspace does not exist for them.
    const theirs = await p.api.call(stranger.auth, 'GET', `/api/files?workspaceId=${listed}`);
    expect(theirs.status).toBe(404);
    // An MCP client lists the same files.
    const mcp = await connectMcp(p.base, owner.auth);
    try {
      const tool = await call(mcp, 'list_workspace_files', { workspaceId: listed });
      expect(tool.isError, tool.text).toBe(false);
      expect(tool.data).toMatchObject({ count: 2, totalCount: 2 });
      expect(tool.data.files.map((f: any) => [f.name, f.kind, f.status])).toEqual([
        ['c.md', 'markdown', 'ready'],
        ['a.txt', 'text', 'ready'],
      ]);
      const bad = await call(mcp, 'list_workspace_files', { workspaceId: listed, kind: 'exe' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toContain('kind');
    } finally {
      await mcp.close();
    }
  });

  it("reads a file's text by chunks, from the chunk a search hit names, over REST and MCP", async () => {
    const { id: reading } = await p.workspace(owner);
    // Twelve paragraphs of about 330 characters: several chunks of about 1,000. Only the tenth
    // holds the rare word.
    const paragraphs = Array.from(
      { length: 12 },
      (_, i) =>
        `Section ${i + 1}. ` +
        'The harbour ledger lists cargo, tides and crews for the season. '.repeat(5) +
        (i === 9 ? 'The quillfeather shipment arrived late.' : 'Nothing else happened.'),
    );
    const res = await p.upload(owner.auth, { workspaceId: reading }, [
      { name: 'ledger.txt', bytes: Buffer.from(paragraphs.join('\n\n')), mime: 'text/plain' },
      { name: 'pixel.png', bytes: fixture('sample.png') },
    ]);
    expect(res.status, res.text).toBe(201);
    const [ledger, image] = res.body.files.map((f: any) => f.id);
    const { chunkCount } = await p.settled(owner.auth, ledger);
    await p.settled(owner.auth, image);
    expect(chunkCount).toBeGreaterThanOrEqual(3);

    const found = await p.api.ok(
      owner.auth,
      'GET',
      `/api/files/search?workspaceId=${reading}&q=quillfeather`,
      undefined,
      200,
    );
    const hit = found.items[0];
    expect(hit.file.id).toBe(ledger);
    expect(hit.chunk).toBeGreaterThan(0);
    const one = await p.api.ok(
      owner.auth,
      'GET',
      `/api/files/${ledger}/chunks?offset=${hit.chunk}&limit=1`,
      undefined,
      200,
    );
    expect(one).toMatchObject({ success: true, count: 1, totalCount: chunkCount, offset: hit.chunk, limit: 1 });
    expect(one.file).toMatchObject({ id: ledger, status: 'ready', chunkCount });
    expect(one.items[0].ordinal).toBe(hit.chunk);
    expect(one.items[0].text).toContain('quillfeather');
    // A name match alone names no chunk.
    const named = await p.api.ok(owner.auth, 'GET', `/api/files/search?workspaceId=${reading}&q=pixel`, undefined, 200);
    expect(named.items[0]).toMatchObject({ matched: ['name'] });
    expect(named.items[0]).not.toHaveProperty('chunk');
    // The workspace search's file hit names the same chunk.
    const beside = await p.api.ok(
      owner.auth,
      'GET',
      `/api/search?workspaceId=${reading}&q=quillfeather`,
      undefined,
      200,
    );
    expect(beside.files[0]).toMatchObject({ fileId: ledger, chunk: hit.chunk });

    // Every chunk in order, the whole text in them; pages of two.
    const all = await p.api.ok(owner.auth, 'GET', `/api/files/${ledger}/chunks?limit=50`, undefined, 200);
    expect(all.items.map((c: any) => c.ordinal)).toEqual([...Array(chunkCount).keys()]);
    for (let i = 1; i <= 12; i++) expect(all.items.some((c: any) => c.text.includes(`Section ${i}.`))).toBe(true);
    const page = await p.api.ok(owner.auth, 'GET', `/api/files/${ledger}/chunks?offset=1&limit=2`, undefined, 200);
    expect(page.items.map((c: any) => c.ordinal)).toEqual([1, 2]);
    const past = await p.api.ok(owner.auth, 'GET', `/api/files/${ledger}/chunks?offset=${chunkCount}`, undefined, 200);
    expect(past).toMatchObject({ items: [], count: 0, totalCount: chunkCount });
    // An image is ready with no text.
    const none = await p.api.ok(owner.auth, 'GET', `/api/files/${image}/chunks`, undefined, 200);
    expect(none).toMatchObject({ items: [], totalCount: 0, file: { kind: 'image', status: 'ready' } });
    for (const bad of ['limit=51', 'limit=0', 'offset=-1', 'limit=two']) {
      const refused = await p.api.call(owner.auth, 'GET', `/api/files/${ledger}/chunks?${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body, bad).toMatchObject({
        code: 'VALIDATION_FAILED',
        fields: [{ field: bad.split('=')[0] }],
      });
    }

    // An MCP client finds the file and reads the passage, then the next chunks.
    const mcp = await connectMcp(p.base, owner.auth);
    try {
      const search = await call(mcp, 'search_workspace_files', {
        workspaceId: reading,
        query: 'quillfeather shipment',
      });
      expect(search.isError, search.text).toBe(false);
      expect(search.data.hits[0]).toMatchObject({
        fileId: ledger,
        name: 'ledger.txt',
        status: 'ready',
        chunk: hit.chunk,
      });
      expect(search.data.hits[0].snippet).toContain('<mark>quillfeather</mark>');
      const read = await call(mcp, 'read_workspace_file', { fileId: ledger, fromChunk: hit.chunk, maxChunks: 1 });
      expect(read.isError, read.text).toBe(false);
      expect(read.data.file).toMatchObject({ fileId: ledger, chunkCount });
      expect(read.data.chunks[0].text).toContain('quillfeather');
      expect(read.data.nextChunk).toBe(hit.chunk + 1 < chunkCount ? hit.chunk + 1 : null);
      const last = await call(mcp, 'read_workspace_file', { fileId: ledger, fromChunk: chunkCount - 1 });
      expect(last.data.chunks.map((c: any) => c.ordinal)).toEqual([chunkCount - 1]);
      expect(last.data.nextChunk).toBeNull();
      // The search tool names the file beside the fragments, as GET /api/search does: on the first
      // page, without tag filters (files have none).
      const beside = await call(mcp, 'search', { workspaceId: reading, query: 'quillfeather' });
      expect(beside.isError, beside.text).toBe(false);
      expect(beside.data.files.map((f: any) => [f.fileId, f.chunk])).toEqual([[ledger, hit.chunk]]);
      expect(
        (await call(mcp, 'search', { workspaceId: reading, query: 'quillfeather', offset: 10 })).data.files,
      ).toEqual([]);
      expect(
        (await call(mcp, 'search', { workspaceId: reading, query: 'quillfeather', tags: ['ops'] })).data.files,
      ).toEqual([]);
      const tooMany = await call(mcp, 'read_workspace_file', { fileId: ledger, maxChunks: 21 });
      expect(tooMany.isError).toBe(true);
    } finally {
      await mcp.close();
    }
    // Another tenant's MCP client gets what an unknown file gets.
    const theirs = await connectMcp(p.base, stranger.auth);
    try {
      const read = await call(theirs, 'read_workspace_file', { fileId: ledger });
      const unknown = await call(theirs, 'read_workspace_file', { fileId: '00000000-0000-4000-8000-000000000000' });
      expect(read.isError).toBe(true);
      expect(read.text).toBe(unknown.text);
      const search = await call(theirs, 'search_workspace_files', { workspaceId: reading, query: 'quillfeather' });
      expect(search.isError).toBe(true);
      expect(search.data?.hits).toBeUndefined();
    } finally {
      await theirs.close();
    }
  });

  it('finds a file by meaning when no word matches, as soon as it is ready, and no longer once deleted', async () => {
    const { id: meaning } = await p.workspace(owner);
    const search = (q: string, mode?: string) =>
      p.api.ok(
        owner.auth,
        'GET',
        `/api/files/search?workspaceId=${meaning}&q=${encodeURIComponent(q)}${mode ? `&mode=${mode}` : ''}`,
        undefined,
        200,
      );
    const first = await p.upload(owner.auth, { workspaceId: meaning }, [
      { name: 'budget.txt', bytes: Buffer.from('Quarterly budget of the marketing office.'), mime: 'text/plain' },
    ]);
    expect(await p.settled(owner.auth, first.body.file.id)).toMatchObject({ status: 'ready' });
    // Searched once: this process now holds the workspace's vectors.
    expect((await search('quarterly budget')).items.map((h: any) => h.file.name)).toEqual(['budget.txt']);
    const geology = await p.upload(owner.auth, { workspaceId: meaning }, [
      {
        name: 'geology.txt',
        bytes: Buffer.from('Field notes on zanzibarite crystals and their cleavage planes.'),
        mime: 'text/plain',
      },
    ]);
    const geologyId = geology.body.file.id;
    expect(await p.settled(owner.auth, geologyId)).toMatchObject({ status: 'ready' });
    // A misspelt word matches no text; the built-in vectors (words and their letter trigrams) still
    // put the file close to it. The snippet is the chunk's opening: it holds no word of the query.
    const typo = 'zanzibarrite crystal';
    expect((await search('zanzibarrite', 'keyword')).items).toEqual([]);
    const semantic = await search(typo, 'semantic');
    expect(semantic.items.map((h: any) => [h.file.name, h.matched])).toEqual([['geology.txt', ['semantic']]]);
    expect(semantic.items[0].snippet).toContain('Field notes on zanzibarite');
    expect(semantic.items[0].score).toBeGreaterThan(0.1);
    expect(semantic.items[0].score).toBeLessThanOrEqual(1);
    const hybrid = await search(typo);
    expect(hybrid.items[0]).toMatchObject({ file: { id: geologyId }, matched: ['content', 'semantic'] });
    // Deleted: neither its words nor its vectors answer any more.
    await p.api.ok(owner.auth, 'DELETE', `/api/files/${geologyId}`, undefined, 200);
    expect((await search(typo, 'semantic')).items).toEqual([]);
    expect((await search(typo)).items).toEqual([]);
    // An unknown mode is refused in the error shape.
    const bad = await p.api.call(owner.auth, 'GET', `/api/files/search?workspaceId=${meaning}&q=x&mode=fuzzy`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
  });

  it('keeps an image as metadata only: ready with no text', async () => {
    const res = await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'pixel.png', bytes: fixture('sample.png') }]);
    expect(res.status, res.text).toBe(201);
    expect(res.body.file).toMatchObject({ kind: 'image', mimeType: 'image/png' });
    expect(await p.settled(owner.auth, res.body.file.id)).toMatchObject({ status: 'ready', chunkCount: 0 });
  });

  it('sniffs the type from the bytes, not from the name or the declared type', async () => {
    const res = await p.upload(owner.auth, { workspaceId: ws }, [
      { name: 'notes.txt', bytes: fixture('sample.pdf'), mime: 'text/plain' },
    ]);
    expect(res.body.file).toMatchObject({ kind: 'pdf', mimeType: 'application/pdf', declaredMimeType: 'text/plain' });
  });

  it('takes a hand-built multipart body with several files and a description', async () => {
    const boundary = '----kw-hand-built-boundary';
    const txt = fixture('sample.txt');
    const md = fixture('sample.md');
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${ws}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="description"\r\n\r\nhand made\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      ),
      txt,
      Buffer.from(
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.md"\r\nContent-Type: text/markdown\r\n\r\n`,
      ),
      md,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await fetch(`${p.base}/api/files/upload`, {
      method: 'POST',
      headers: { ...authHeaders(owner.auth), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    const json: any = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(201);
    expect(json.files.map((f: any) => [f.name, f.sha256, f.description])).toEqual([
      ['a.txt', sha256(txt), 'hand made'],
      ['b.md', sha256(md), 'hand made'],
    ]);
  });

  it('answers 413 over the cap and keeps nothing, not even the files before it in the same upload', async () => {
    const other = (await p.workspace(owner)).id;
    const res = await p.upload(owner.auth, { workspaceId: other }, [
      { name: 'fine.txt', bytes: fixture('sample.txt') },
      { name: 'big.bin', bytes: new Uint8Array(CAP + 1) },
    ]);
    expect(res.status, res.text).toBe(413);
    expect(res.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const found = await p.api.ok(owner.auth, 'GET', `/api/files/search?workspaceId=${other}&q=.`, undefined, 200);
    expect(found.totalCount).toBe(0);
    expect(blobsOf(other)).toEqual([]);
    // The platform still answers, and the same workspace takes a file under the cap.
    const ok = await p.upload(owner.auth, { workspaceId: other }, [{ name: 'fine.txt', bytes: fixture('sample.txt') }]);
    expect(ok.status, ok.text).toBe(201);
  });

  it('refuses uploads that name no workspace before the file, or no file, or are not multipart', async () => {
    const late = await p.upload(owner.auth, {}, [{ name: 'a.txt', bytes: fixture('sample.txt') }]);
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      error: 'workspaceId: is required, before the file parts',
      fields: [{ field: 'workspaceId' }],
    });
    // Sent first but malformed: said so, not that it came too late.
    for (const [fields, field] of [
      [{ workspaceId: 'not-a-uuid' }, 'workspaceId'],
      [{ workspaceId: ws, fragmentId: 'nope' }, 'fragmentId'],
    ] as const) {
      const bad = await p.upload(owner.auth, fields, [{ name: 'a.txt', bytes: fixture('sample.txt') }]);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        error: `${field}: must be a UUID`,
        fields: [{ field, problems: ['must be a UUID'] }],
      });
    }
    const none = await p.upload(owner.auth, { workspaceId: ws }, []);
    expect(none.status).toBe(400);
    const json = await p.api.call(owner.auth, 'POST', '/api/files/upload', { workspaceId: ws });
    expect(json.status).toBe(415);
    expect(json.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('updates metadata with a safe name, and deletes the file with its bytes', async () => {
    const res = await p.upload(owner.auth, { workspaceId: ws }, [
      { name: 'rename-me.txt', bytes: fixture('sample.txt') },
    ]);
    const id = res.body.file.id;
    const before = blobsOf(ws).length;
    const patched = await p.api.ok(
      owner.auth,
      'PATCH',
      `/api/files/${id}`,
      { name: '../../etc/passwd', description: 'd' },
      200,
    );
    expect(patched.file).toMatchObject({ name: 'passwd', description: 'd' });
    await p.settled(owner.auth, id);
    await p.api.ok(owner.auth, 'DELETE', `/api/files/${id}`, undefined, 200);
    expect((await p.api.call(owner.auth, 'GET', `/api/files/${id}`)).status).toBe(404);
    expect((await p.download(owner.auth, `/api/files/${id}/download`)).res.status).toBe(404);
    expect(blobsOf(ws)).not.toContain(id);
    expect(blobsOf(ws).length).toBe(before - 1);
  });

  it('lets exactly one of racing deletes of a file win, the others answering 404', async () => {
    for (let round = 0; round < 3; round++) {
      const id = (
        await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'raced.txt', bytes: fixture('sample.txt') }])
      ).body.file.id;
      const statuses = await Promise.all(
        Array.from({ length: 8 }, () => p.api.call(owner.auth, 'DELETE', `/api/files/${id}`).then((r) => r.status)),
      );
      expect(
        statuses.filter((s) => s === 200),
        statuses.join(),
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 404)).toHaveLength(7);
    }
  });

  it('bulk-deletes with an outcome per id', async () => {
    const a = (await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'a.txt', bytes: fixture('sample.txt') }])).body
      .file.id;
    const missing = '00000000-0000-4000-8000-000000000000';
    const res = await p.api.ok(owner.auth, 'POST', '/api/files/bulk-delete', { ids: [a, missing] }, 200);
    expect(res).toMatchObject({
      deleted: 1,
      results: [
        { id: a, deleted: true },
        { id: missing, deleted: false, code: 'NOT_FOUND' },
      ],
    });
  });

  it('attaches files to fragments of the same workspace only', async () => {
    const space = await p.workspace(owner);
    const fragment = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: space.id, fragmentTypeId: space.noteTypeId, title: 'with files', content: 'body' },
      201,
    );
    const fragmentId = (fragment.fragment ?? fragment).id;
    const up = await p.upload(owner.auth, { workspaceId: space.id, fragmentId }, [
      { name: 'attached.txt', bytes: fixture('sample.txt') },
    ]);
    expect(up.status, up.text).toBe(201);
    expect(up.body.file.fragmentIds).toEqual([fragmentId]);
    const second = (
      await p.upload(owner.auth, { workspaceId: space.id }, [{ name: 'later.md', bytes: fixture('sample.md') }])
    ).body.file.id;
    await p.api.ok(owner.auth, 'POST', `/api/files/${second}/attachments`, { fragmentId }, 200);
    const listed = await p.api.ok(owner.auth, 'GET', `/api/fragments/${fragmentId}/files`, undefined, 200);
    expect(listed.items.map((f: any) => f.name)).toEqual(['attached.txt', 'later.md']);
    await p.api.ok(owner.auth, 'DELETE', `/api/files/${second}/attachments`, { fragmentId }, 200);
    expect((await p.api.call(owner.auth, 'DELETE', `/api/files/${second}/attachments`, { fragmentId })).status).toBe(
      404,
    );
    // A fragment of another workspace: refused, nothing attached.
    const elsewhere = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws, fragmentTypeId: noteType, title: 'elsewhere', content: 'body' },
      201,
    );
    const cross = await p.api.call(owner.auth, 'POST', `/api/files/${second}/attachments`, {
      fragmentId: (elsewhere.fragment ?? elsewhere).id,
    });
    expect(cross.status, cross.text).toBe(400);
    expect((await p.api.ok(owner.auth, 'GET', `/api/files/${second}`, undefined, 200)).file.fragmentIds).toEqual([]);
  });

  it('drops a fragment deleted for good from its files, and keeps an archived one', async () => {
    const space = await p.workspace(owner);
    const fragment = async (title: string) => {
      const made = await p.api.ok(
        owner.auth,
        'POST',
        '/api/memory-fragments',
        { workspaceId: space.id, fragmentTypeId: space.noteTypeId, title, content: 'body' },
        201,
      );
      return (made.fragment ?? made).id as string;
    };
    const [gone, archived] = [await fragment('deleted for good'), await fragment('archived')];
    const id = (
      await p.upload(owner.auth, { workspaceId: space.id }, [{ name: 'kept.txt', bytes: fixture('sample.txt') }])
    ).body.file.id;
    for (const fragmentId of [gone, archived])
      await p.api.ok(owner.auth, 'POST', `/api/files/${id}/attachments`, { fragmentId }, 200);
    await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${gone}?permanent=true`, undefined, 200);
    await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${archived}`, undefined, 200);
    // The clean-up follows the deletion's event: within a few seconds, the file and the listing agree.
    const deadline = Date.now() + 10_000;
    let one: string[] = [];
    for (;;) {
      one = (await p.api.ok(owner.auth, 'GET', `/api/files/${id}`, undefined, 200)).file.fragmentIds;
      if (!one.includes(gone) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(one).toEqual([archived]);
    const listed = await p.api.ok(owner.auth, 'GET', `/api/files?workspaceId=${space.id}`, undefined, 200);
    expect(listed.items.find((f: any) => f.id === id).fragmentIds).toEqual([archived]);
  });

  it('shows other tenants nothing: 404 identical to a missing file, on every file route', async () => {
    const id = (
      await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'private.txt', bytes: fixture('sample.txt') }])
    ).body.file.id;
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { name: 'x' }],
      ['DELETE', '', undefined],
      ['GET', '/status', undefined],
      ['GET', '/chunks', undefined],
      ['GET', '/download', undefined],
      ['POST', '/cancel', undefined],
    ] as const) {
      const theirs = await fetch(`${p.base}/api/files/${id}${suffix}`, {
        method,
        headers: { ...authHeaders(stranger.auth), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const none = await fetch(`${p.base}/api/files/${missing}${suffix}`, {
        method,
        headers: { ...authHeaders(stranger.auth), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      expect(theirs.status, `${method} ${suffix}`).toBe(404);
      expect(await theirs.text()).toBe(await none.text());
    }
    const search = await p.api.call(stranger.auth, 'GET', `/api/files/search?workspaceId=${ws}&q=private`);
    expect(search.status).toBe(404);
    const upload = await p.upload(stranger.auth, { workspaceId: ws }, [
      { name: 'in.txt', bytes: fixture('sample.txt') },
    ]);
    expect(upload.status).toBe(404);
    expect(await p.api.ok(owner.auth, 'GET', `/api/files/${id}`, undefined, 200)).toMatchObject({ file: { id } });
  });

  it('names the field of every refused value with VALIDATION_FAILED, and counts characters as code points', async () => {
    const refused = async (res: { status: number; body: any }, field: string, problem?: RegExp) => {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field }] });
      if (problem) expect(res.body.fields[0].problems.join()).toMatch(problem);
    };
    // A blank query is refused as an empty one is.
    for (const q of ['', '%20'])
      await refused(await p.api.call(owner.auth, 'GET', `/api/files/search?workspaceId=${ws}&q=${q}`), 'q');
    // A negative page bound is an integer out of range, and says so.
    for (const [route, field] of [
      [`/api/files?workspaceId=${ws}&offset=-1`, 'offset'],
      [`/api/files?workspaceId=${ws}&limit=-1`, 'limit'],
    ])
      await refused(await p.api.call(owner.auth, 'GET', route), field, /less than/);
    // A multipart field with NUL: named like a JSON body's, nothing stored.
    const nul = await p.upload(owner.auth, { workspaceId: ws, description: 'a\u0000b' }, [
      { name: 'nul-description.txt', bytes: fixture('sample.txt') },
    ]);
    await refused(nul, 'description', /NUL/);
    // 2,000 characters of description are 2,000 emoji (4,000 UTF-16 units), by upload and by PATCH; one more is refused.
    const emoji = '\u{1F600}'.repeat(2_000);
    const up = await p.upload(owner.auth, { workspaceId: ws, description: emoji }, [
      { name: 'emoji.txt', bytes: fixture('sample.txt') },
    ]);
    expect(up.status, up.text).toBe(201);
    expect(up.body.file.description).toBe(emoji);
    await p.api.ok(owner.auth, 'PATCH', `/api/files/${up.body.file.id}`, { description: emoji }, 200);
    await refused(
      await p.api.call(owner.auth, 'PATCH', `/api/files/${up.body.file.id}`, { description: `${emoji}x` }),
      'description',
    );
    const over = await p.upload(owner.auth, { workspaceId: ws, description: `${emoji}x` }, [
      { name: 'emoji-over.txt', bytes: fixture('sample.txt') },
    ]);
    await refused(over, 'description');
    const names = (
      await p.api.ok(owner.auth, 'GET', `/api/files?workspaceId=${ws}&limit=100`, undefined, 200)
    ).items.map((f: any) => f.name);
    expect(names).not.toContain('nul-description.txt');
    expect(names).not.toContain('emoji-over.txt');
  });

  it('answers 401 without credentials', async () => {
    expect(
      (await p.upload(undefined, { workspaceId: ws }, [{ name: 'a.txt', bytes: fixture('sample.txt') }])).status,
    ).toBe(401);
    expect((await p.api.call(undefined, 'GET', `/api/files/search?workspaceId=${ws}&q=a`)).status).toBe(401);
  });

  it('cancels a file at once in every stage of its processing, also while its chunks are stored', async () => {
    // About 4 MB of text: extraction is quick, cutting, embedding and storing its chunks take seconds.
    const text = Buffer.from('lorem ipsum dolor sit amet '.repeat(150_000));
    for (const delay of [0, 300, 800]) {
      const id = (await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'long.txt', bytes: text }])).body.file.id;
      await new Promise((resolve) => setTimeout(resolve, delay));
      expect((await p.api.ok(owner.auth, 'GET', `/api/files/${id}/status`, undefined, 200)).status).toBe('processing');
      const started = Date.now();
      const res = await p.api.call(owner.auth, 'POST', `/api/files/${id}/cancel`);
      expect(res.status, `after ${delay} ms: ${res.text}`).toBe(200);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(res.body).toMatchObject({ status: 'cancelled' });
      // It stays cancelled, with no chunks, once the work it interrupted has run out.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const { file } = await p.api.ok(owner.auth, 'GET', `/api/files/${id}`, undefined, 200);
      expect(file).toMatchObject({ status: 'cancelled', chunkCount: 0 });
      const chunks = await p.api.ok(owner.auth, 'GET', `/api/files/${id}/chunks`, undefined, 200);
      expect(chunks.items).toHaveLength(0);
    }
  }, 60_000);

  it('cancels only what is processing', async () => {
    const id = (await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'c.txt', bytes: fixture('sample.txt') }])).body
      .file.id;
    await p.settled(owner.auth, id);
    const res = await p.api.call(owner.auth, 'POST', `/api/files/${id}/cancel`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFLICT' });
  });
});
