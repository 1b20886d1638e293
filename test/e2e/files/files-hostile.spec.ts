import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, createToken } from '../../support/accounts.js';
import { makeDocx, makeFlateBombPdf, makeLargeDocx, makeManyPagePdf } from '../../fixtures/files/make-fixtures.mjs';
import type { Person } from '../fragments/fragments-fixture.js';
import { fixture, sha256, startFilesPlatform } from './files-fixture.js';

const MiB = 1024 * 1024;

/**
 * What a hostile client sends: files built to break the extractor, names built to escape or to
 * inject, and the byte proxy's edges (401, 403, 413, base64 and data URLs). Each hostile file
 * ends `failed` with its reason while the platform keeps answering.
 */
describe('files: hostile input and the byte proxy', () => {
  let p: Awaited<ReturnType<typeof startFilesPlatform>>;
  let owner: Person;
  let ws: string;

  beforeAll(async () => {
    // Room for the byte proxy's 50 MiB edge.
    p = await startFilesPlatform({ FILES_MAX_BYTES: String(60 * MiB) });
    owner = await p.person();
    ws = (await p.workspace(owner)).id;
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  const healthy = async () => {
    const res = await fetch(`${p.base}/api/health`);
    expect(res.status).toBe(200);
  };

  it.each([
    ['a malformed PDF', 'broken.pdf', () => fixture('malformed.pdf'), 'malformed'],
    ['a DOCX zip bomb', 'bomb.docx', () => fixture('zip-bomb.docx'), 'archive_too_large'],
    // 1.8 MB whose document.xml is 199 MiB at about 110:1: within the archive limits, past the XML a DOCX may hold.
    [
      'a dense DOCX bomb',
      'dense-bomb.docx',
      () => makeLargeDocx(199, { words: [1, 1], sessions: 1 }),
      'archive_too_large',
    ],
    ['a 10,000-page PDF', 'huge.pdf', () => makeManyPagePdf(10_000), 'too_many_pages'],
    // 300 KB whose content stream inflates to 300 MiB, held whole by pdf.js outside the heap limit.
    ['a flate-bomb PDF', 'flate-bomb.pdf', () => makeFlateBombPdf(300), 'too_much_memory'],
    // One 26 MiB stream that the page's /Contents names 8 times: pdf.js inflates it once a reference (208 MiB).
    ['a PDF naming one stream 8 times', 'repeated.pdf', () => makeFlateBombPdf(26, 'again', 8), 'too_much_memory'],
  ])('%s ends failed (%s) and the platform keeps answering', async (_what, name, bytes, reason) => {
    const res = await p.upload(owner.auth, { workspaceId: ws }, [{ name, bytes: bytes() }]);
    expect(res.status, res.text).toBe(201);
    const status = await p.settled(owner.auth, res.body.file.id);
    expect(status).toMatchObject({ status: 'failed', failureReason: reason });
    expect(status.failureMessage).toBeTruthy();
    await healthy();
    // A normal file right after is processed as usual.
    const ok = await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'after.txt', bytes: fixture('sample.txt') }]);
    expect(await p.settled(owner.auth, ok.body.file.id)).toMatchObject({ status: 'ready' });
  });

  it("tells the user why a file failed in the reason's words, never the parser's", async () => {
    // An undefined entity: the XML parser's own message names it, with xmldom's tag and positions.
    const res = await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'entity.docx', bytes: makeDocx(['&lol9;']) }]);
    expect(res.status, res.text).toBe(201);
    const status = await p.settled(owner.auth, res.body.file.id);
    expect(status).toMatchObject({
      status: 'failed',
      failureReason: 'malformed',
      failureMessage: 'The document is malformed and could not be read.',
    });
    const { file } = await p.api.ok(owner.auth, 'GET', `/api/files/${res.body.file.id}`, undefined, 200);
    expect(file.failureMessage).toBe(status.failureMessage);
    expect(JSON.stringify(file)).not.toMatch(/xmldom|lol9|line:/);
  });

  it('answers 400 to a file part the body ends inside, keeps nothing, and keeps answering', async () => {
    // The body ends (its Content-Length honoured) before the part's closing boundary: the part's
    // own stream fails, which once went unhandled and ended the whole process.
    const boundary = '----kw-unterminated';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${ws}\r\n`;
    for (const tail of [
      'no closing boundary',
      // Large enough that storage has begun to write it before the end is found.
      'x'.repeat(256 * 1024),
    ]) {
      const body = `${head}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n\r\n${tail}`;
      const res = await fetch(`${p.base}/api/files/upload`, {
        method: 'POST',
        headers: { ...authHeaders(owner.auth), 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
      });
      const json: any = await res.json();
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(json.error).toMatch(/multipart body is malformed/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await healthy();
    }
    const listed = await fetch(`${p.base}/api/files?workspaceId=${ws}&limit=100`, { headers: authHeaders(owner.auth) });
    const names = ((await listed.json()) as any).items.map((f: any) => f.name);
    expect(names).not.toContain('cut.txt');
  });

  it('stores names with ../, NUL bytes, 1,000 characters, invisible characters or device names safely', async () => {
    const boundary = '----kw-hostile-names';
    const long = `${'n'.repeat(1_000)}.txt`;
    const names = [
      '../../../etc/passwd',
      'nul\u0000byte.txt',
      long,
      '..\\..\\windows\\win.ini',
      'pay\u200bpal\ufeff.txt',
      'CON.txt',
      'aux',
      // Other default-ignorable characters: soft hyphen, U+034F, U+180E, invisible operators,
      // Hangul filler, an interlinear annotation mark, a tag character, a musical format control.
      'pay\u00ad\u034f\u180e\u2061\u2064\u206a\u3164\ufff9\u{e0041}\u{1d173}pal.txt',
      // Full-width letters: stored as they are, but their ASCII fallback is a device name.
      '\uff43\uff4f\uff4e.txt',
    ];
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${ws}\r\n`),
      ...names.map((name) =>
        Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="`),
          Buffer.from(name, 'utf8'),
          Buffer.from(`"\r\nContent-Type: text/plain\r\n\r\nhostile name\r\n`),
        ]),
      ),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const res = await fetch(`${p.base}/api/files/upload`, {
      method: 'POST',
      headers: { ...authHeaders(owner.auth), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    const json: any = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(201);
    const stored = json.files.map((f: any) => f.name as string);
    expect(stored[0]).toBe('passwd');
    expect(stored[1]).not.toContain('\u0000');
    expect(Buffer.byteLength(stored[2])).toBeLessThanOrEqual(255);
    expect(stored[2].endsWith('.txt')).toBe(true);
    expect(stored[3]).toBe('win.ini');
    // Zero-width characters are gone (a look-alike of another name), device names made plain files.
    expect(stored.slice(4)).toEqual(['paypal.txt', '_CON.txt', '_aux', 'paypal.txt', '\uff43\uff4f\uff4e.txt']);
    for (const name of stored) expect(name).not.toMatch(/[/\\]|\.\./);
    // The download's header carries the name safely.
    const dl = await p.download(owner.auth, `/api/files/${json.files[1].id}/download`);
    expect(dl.res.headers.get('content-disposition')).not.toMatch(/[\r\n\u0000]/);
    // The ASCII fallback of `ｃｏｎ.txt` is `con.txt`, a device name: it gets the `_` too.
    const wide = await p.download(owner.auth, `/api/files/${json.files[8].id}/download`);
    expect(wide.res.headers.get('content-disposition')).toContain('filename="_con.txt"');
    await healthy();
  });

  describe('byte proxy', () => {
    it('round-trips raw base64 and a data URL', async () => {
      const bytes = fixture('sample.pdf');
      for (const base64 of [bytes.toString('base64'), `data:application/pdf;base64,${bytes.toString('base64')}`]) {
        const put = await p.api.call(owner.auth, 'POST', '/api/workspace-files/bytes', {
          workspaceId: ws,
          fileName: 'proxied.pdf',
          mimeType: 'application/pdf',
          base64,
        });
        expect(put.status, put.text).toBe(201);
        expect(put.body).toMatchObject({ ok: true, status: 'processing' });
        const got = await p.download(owner.auth, `/api/workspace-files/${put.body.fileId}/bytes`);
        expect(got.res.status).toBe(200);
        expect(sha256(got.bytes)).toBe(sha256(bytes));
        expect(await p.settled(owner.auth, put.body.fileId)).toMatchObject({ status: 'ready' });
      }
    });

    it('refuses what is not base64 with 400 VALIDATION_FAILED naming the field', async () => {
      const put = await p.api.call(owner.auth, 'POST', '/api/workspace-files/bytes', {
        workspaceId: ws,
        fileName: 'x.txt',
        mimeType: 'text/plain',
        base64: 'not base64 at all!',
      });
      expect(put.status).toBe(400);
      expect(put.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'base64' }] });
    });

    it('refuses a mimeType that is not a media type with 400 naming it, stores nothing, and keeps one that is', async () => {
      const listed = async () =>
        (await p.api.ok(owner.auth, 'GET', `/api/files?workspaceId=${ws}&limit=100`, undefined, 200)).items.map(
          (f: any) => f.name,
        );
      for (const mimeType of ['text/plain\r\nX-Inj: 1', 'text/plain\n', 'text plain', 'text/plain; x=a b']) {
        const put = await p.api.call(owner.auth, 'POST', '/api/workspace-files/bytes', {
          workspaceId: ws,
          fileName: 'injected.txt',
          mimeType,
          base64: 'aGVsbG8=',
        });
        expect(put.status, JSON.stringify(mimeType)).toBe(400);
        expect(put.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'mimeType' }] });
      }
      expect(await listed()).not.toContain('injected.txt');
      const put = await p.api.ok(
        owner.auth,
        'POST',
        '/api/workspace-files/bytes',
        { workspaceId: ws, fileName: 'typed.txt', mimeType: 'text/plain; charset="utf-8"', base64: 'aGVsbG8=' },
        201,
      );
      const { file } = await p.api.ok(owner.auth, 'GET', `/api/files/${put.fileId}`, undefined, 200);
      expect(file.declaredMimeType).toBe('text/plain; charset="utf-8"');
    });

    it('answers 401 without credentials and 403 to a token that may not read files', async () => {
      const put = await p.api.ok(
        owner.auth,
        'POST',
        '/api/workspace-files/bytes',
        { workspaceId: ws, fileName: 'a.txt', mimeType: 'text/plain', base64: 'aGVsbG8=' },
        201,
      );
      const anonymous = await fetch(`${p.base}/api/workspace-files/${put.fileId}/bytes`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
      const { token } = await createToken(p.base, owner.auth, { scopes: ['fragments:read'] });
      const scoped = await fetch(`${p.base}/api/workspace-files/${put.fileId}/bytes`, { headers: authHeaders(token) });
      expect(scoped.status).toBe(403);
      expect(await scoped.json()).toMatchObject({ code: 'FORBIDDEN' });
      const write = await p.api.call(token, 'POST', '/api/workspace-files/bytes', {
        workspaceId: ws,
        fileName: 'a.txt',
        mimeType: 'text/plain',
        base64: 'aGVsbG8=',
      });
      expect(write.status).toBe(403);
    });

    it('answers 413 for a file just over 50 MiB, both ways, and stores nothing for the refused write', async () => {
      const over = new Uint8Array(50 * MiB + 1);
      const up = await p.upload(owner.auth, { workspaceId: ws }, [{ name: 'big.bin', bytes: over }]);
      expect(up.status, up.text).toBe(201);
      const read = await fetch(`${p.base}/api/workspace-files/${up.body.file.id}/bytes`, {
        headers: authHeaders(owner.auth),
      });
      expect(read.status).toBe(413);
      expect(await read.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      // Exactly 50 MiB still goes through.
      const at = await p.upload(owner.auth, { workspaceId: ws }, [
        { name: 'edge.bin', bytes: new Uint8Array(50 * MiB) },
      ]);
      const edge = await fetch(`${p.base}/api/workspace-files/${at.body.file.id}/bytes`, {
        headers: authHeaders(owner.auth),
      });
      expect(edge.status).toBe(200);
      expect((await edge.arrayBuffer()).byteLength).toBe(50 * MiB);
      const before = await p.api.ok(
        owner.auth,
        'GET',
        `/api/files/search?workspaceId=${ws}&q=toolarge`,
        undefined,
        200,
      );
      const put = await p.api.call(owner.auth, 'POST', '/api/workspace-files/bytes', {
        workspaceId: ws,
        fileName: 'toolarge.bin',
        mimeType: 'application/octet-stream',
        base64: Buffer.from(over).toString('base64'),
      });
      expect(put.status, put.text.slice(0, 200)).toBe(413);
      const after = await p.api.ok(owner.auth, 'GET', `/api/files/search?workspaceId=${ws}&q=toolarge`, undefined, 200);
      expect(after.totalCount).toBe(before.totalCount);
    });
  });
});
