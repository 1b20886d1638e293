import { createHash, randomBytes } from 'node:crypto';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { deflatedZeros, zipWith } from '../../../../test/support/zip-bomb.js';
import { ArchiveError, readArchive, writeArchive, type ArchiveRecords } from './workspace-archive.js';

const records = (): ArchiveRecords => ({
  'fragment-types.ndjson': [{ id: 't1', key: 'note', name: 'Note', description: '' }],
  'fragments.ndjson': [
    {
      id: 'f1',
      fragmentTypeId: 't1',
      title: 'One',
      content: 'ünï ✓\nsecond line',
      summary: null,
      summarySource: null,
      tags: ['a'],
      enhanceTags: false,
      key: 'k1',
      createdVia: 'api',
      createdAt: '2026-11-26T00:00:00.000Z',
      updatedAt: '2026-11-26T00:00:00.000Z',
      archivedAt: null,
    },
  ],
  'collections.ndjson': [{ id: 'c1', name: 'C', description: '' }],
  'collection-fragments.ndjson': [{ collectionId: 'c1', fragmentId: 'f1' }],
  'graph-entities.ndjson': [
    { id: 'e1', kind: 'person', name: 'Ada' },
    { id: 'e2', kind: 'tech', name: 'Zip' },
  ],
  'graph-relations.ndjson': [{ sourceId: 'e1', targetId: 'e2', kind: 'uses', fragmentId: 'f1' }],
  'files.ndjson': [
    {
      id: 'file1',
      name: 'a.txt',
      description: '',
      mimeType: 'text/plain',
      kind: 'text',
      sizeBytes: 5,
      sha256: createHash('sha256').update('hello').digest('hex'),
      fragmentIds: ['f1'],
    },
  ],
});
const BYTES = new Map([['file1', strToU8('hello')]]);

/** Rebuilds an archive with one entry replaced and the manifest made to agree with it. */
function withEntry(bytes: Uint8Array, name: string, text: string, records: number): Uint8Array {
  const files = unzipSync(bytes);
  files[name] = strToU8(text);
  const manifest = JSON.parse(strFromU8(files['manifest.json']!));
  manifest.entries[name] = { records, sha256: createHash('sha256').update(files[name]).digest('hex') };
  files['manifest.json'] = strToU8(JSON.stringify(manifest));
  return zipSync(files);
}

const bytesOf = async (chunks: AsyncIterable<Uint8Array>) => {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
};

const failure = async (bytes: Uint8Array) => {
  try {
    await readArchive(bytes);
  } catch (err) {
    if (err instanceof ArchiveError) return err.message;
    throw err;
  }
  return 'read';
};

describe('the workspace archive', () => {
  it('reads back exactly what was written', async () => {
    const bytes = await writeArchive({ workspaceId: 'w1' }, records(), new Date('2026-11-26T01:02:03Z'), BYTES);
    const read = await readArchive(bytes);
    expect(read.records).toEqual(records());
    expect(strFromU8(await bytesOf(read.openFile('file1')))).toBe('hello');
    expect(read.manifest).toMatchObject({
      format: 'kw-workspace-archive',
      version: 1,
      exportedAt: '2026-11-26T01:02:03.000Z',
      source: { workspaceId: 'w1' },
    });
  });

  it('names the entry and line of a bad record, and refuses dangling references', async () => {
    const bytes = await writeArchive({ workspaceId: 'w1' }, records(), new Date(), BYTES);
    const line = (r: object) => `${JSON.stringify(r)}\n`;
    expect(
      await failure(withEntry(bytes, 'collections.ndjson', `${line({ id: 'c1', name: 'C' })}not json\n`, 2)),
    ).toMatch(/^collections\.ndjson line 2: /);
    expect(
      await failure(withEntry(bytes, 'collection-fragments.ndjson', line({ collectionId: 'c9', fragmentId: 'f1' }), 1)),
    ).toBe('collection-fragments.ndjson line 1: names a collection or fragment the archive lacks');
    expect(await failure(withEntry(bytes, 'collections.ndjson', line({ id: 'c1', name: 'C' }), 2))).toBe(
      'collections.ndjson: 1 records where the manifest says 2',
    );
  });

  it('refuses, with entry and line, every record the API would refuse or the database could not store', async () => {
    const bytes = await writeArchive({ workspaceId: 'w1' }, records(), new Date(), BYTES);
    const f1 = records()['fragments.ndjson'][0]!;
    const fragments = (...changes: object[]) =>
      withEntry(
        bytes,
        'fragments.ndjson',
        [f1, ...changes.map((c, i) => ({ ...f1, id: `f${i + 2}`, key: null, ...c }))]
          .map((r) => `${JSON.stringify(r)}\n`)
          .join(''),
        changes.length + 1,
      );
    expect(await failure(fragments({ content: 'x'.repeat(1_000_001) }))).toBe(
      'fragments.ndjson line 2: content must be at most 1000000 bytes',
    );
    expect(await failure(fragments({}, { title: 'nul\u0000here' }))).toBe(
      'fragments.ndjson line 3: title must not contain the NUL character (U+0000)',
    );
    expect(await failure(fragments({ title: '\ud800 lone' }))).toBe(
      'fragments.ndjson line 2: title must be well-formed Unicode (it contains a lone UTF-16 surrogate)',
    );
    expect(await failure(fragments({ tags: ['ok', 'a\udc00'] }))).toMatch(
      /^fragments\.ndjson line 2: each value in tags/,
    );
    expect(await failure(fragments({ title: '   ' }))).toBe('fragments.ndjson line 2: title must not be blank');
    expect(await failure(fragments({ title: 'x'.repeat(501) }))).toBe(
      'fragments.ndjson line 2: title must be shorter than or equal to 500 characters',
    );
    expect(await failure(fragments({ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }))).toBe(
      'fragments.ndjson line 2: tags must contain no more than 50 elements',
    );
    expect(await failure(fragments({ createdVia: 'hacker' }))).toBe(
      'fragments.ndjson line 2: createdVia must be one of api, mcp, import, web, agent, chat, integration',
    );
    expect(await failure(fragments({ archivedAt: 'not a date' }))).toBe(
      'fragments.ndjson line 2: archivedAt must be an ISO 8601 date-time or null',
    );
    expect(await failure(fragments({ enhanceTags: 'yes' }))).toBe(
      'fragments.ndjson line 2: enhanceTags must be a boolean',
    );
    // The same id twice: references to it would be ambiguous.
    expect(await failure(fragments({}, { id: 'f2', title: 'Another' }))).toBe(
      'fragments.ndjson line 3: id f2 is the id of line 2 too',
    );
    const line = (r: object) => `${JSON.stringify(r)}\n`;
    expect(
      await failure(
        withEntry(
          bytes,
          'fragment-types.ndjson',
          line({ id: 't1', key: 'note' }) + line({ id: 't2', key: 'Bad Key', name: 'B' }),
          2,
        ),
      ),
    ).toBe('fragment-types.ndjson line 1: name must be a string');
    expect(
      await failure(
        withEntry(
          bytes,
          'fragment-types.ndjson',
          line({ id: 't1', key: 'note', name: 'N' }) + line({ id: 't2', key: 'Bad Key', name: 'B' }),
          2,
        ),
      ),
    ).toBe('fragment-types.ndjson line 2: key must be lower-case letters, digits, - or _');
    expect(
      await failure(
        withEntry(bytes, 'collections.ndjson', line({ id: 'c1', name: 'C' }) + line({ id: 'c1', name: 'D' }), 2),
      ),
    ).toBe('collections.ndjson line 2: id c1 is the id of line 1 too');
  });

  it('refuses another format or version, a missing entry and a truncated zip', async () => {
    const bytes = await writeArchive({ workspaceId: 'w1' }, records(), new Date(), BYTES);
    const files = unzipSync(bytes);
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    expect(
      await failure(zipSync({ ...files, 'manifest.json': strToU8(JSON.stringify({ ...manifest, version: 2 })) })),
    ).toBe('manifest.json: version 2 is not supported (1)');
    const { ['graph-relations.ndjson']: _dropped, ...rest } = files;
    expect(await failure(zipSync(rest))).toBe('graph-relations.ndjson: missing');
    expect(await failure(bytes.slice(0, bytes.length - 10))).toMatch(/truncated or damaged/);
    expect(await failure(zipSync({ ...files, 'files/file1': strToU8('hellO') }))).toBe(
      'files/file1: size or SHA-256 does not match files.ndjson',
    );
  });

  it('zips and unzips an archive above 2 MiB in worker threads, with the same result', async () => {
    // A 3 MiB file (stored as is) and 3 MB of fragments (deflated): both paths leave the thread.
    const big = records();
    const content = 'x'.repeat(1_000_000); // a fragment's most, three times over
    big['fragments.ndjson'] = ['f1', 'f2', 'f3'].map((id) => ({ ...big['fragments.ndjson'][0]!, id, content }));
    const blob = randomBytes(3 * 1024 * 1024);
    big['files.ndjson'] = [
      { ...big['files.ndjson'][0]!, sizeBytes: blob.length, sha256: createHash('sha256').update(blob).digest('hex') },
    ];
    const bytes = await writeArchive({ workspaceId: 'w1' }, big, new Date(), new Map([['file1', blob]]));
    expect(bytes.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(bytes.length).toBeLessThan(4 * 1024 * 1024); // the fragment's text deflated
    const read = await readArchive(bytes);
    expect(read.records['fragments.ndjson'].map((f) => f.content)).toEqual([content, content, content]);
    expect((await bytesOf(read.openFile('file1'))).equals(blob)).toBe(true);
    expect(await failure(bytes.slice(0, bytes.length - 10))).toMatch(/truncated or damaged/);
  });

  describe('a zip bomb', () => {
    const GIB = 1024 * 1024 * 1024;
    /** The entries of a valid archive, as a hand-made zip can hold them. */
    const entries = async () =>
      unzipSync(await writeArchive({ workspaceId: 'w1' }, records(), new Date(), BYTES)) as Record<string, Uint8Array>;
    const rssGrowth = async (work: () => Promise<unknown>) => {
      const before = process.memoryUsage().rss;
      await work();
      return process.memoryUsage().rss - before;
    };

    it('is refused by the declared size of an entry, before inflating it, memory unmoved', async () => {
      const files = await entries();
      // 1.5 GiB of zeros in the archive's fragments entry: a 7 MB zip declaring its true size.
      const zeros = await deflatedZeros(1.5 * GIB);
      const bomb = zipWith(files, { name: 'fragments.ndjson', deflated: zeros, declaredSize: 1.5 * GIB });
      expect(bomb.length).toBeLessThan(10 * 1024 * 1024);
      let message = '';
      const grew = await rssGrowth(async () => (message = await failure(bomb)));
      expect(message).toBe(
        `fragments.ndjson: ${1.5 * GIB} bytes uncompressed, over the import's limit of ${256 * 1024 * 1024} bytes per entry`,
      );
      expect(grew).toBeLessThan(64 * 1024 * 1024);
    }, 30_000);

    it('stops inflating an entry that holds more than it declares', async () => {
      const files = await entries();
      // Declares 1 KiB, holds 1.5 GiB: inflation stops just past the declared size.
      const zeros = await deflatedZeros(1.5 * GIB);
      const liar = zipWith(files, { name: 'fragments.ndjson', deflated: zeros, declaredSize: 1024 });
      let message = '';
      const grew = await rssGrowth(async () => (message = await failure(liar)));
      expect(message).toBe('fragments.ndjson: inflates to more than the 1024 bytes its zip header declares; damaged');
      expect(grew).toBeLessThan(64 * 1024 * 1024);
    }, 30_000);

    it('never inflates an entry the manifest does not list, and caps the total', async () => {
      const files = await entries();
      const junk = { name: 'junk.bin', deflated: await deflatedZeros(1.5 * GIB), declaredSize: 1.5 * GIB };
      const withJunk = zipWith(files, junk);
      const grew = await rssGrowth(async () => expect((await readArchive(withJunk)).records).toEqual(records()));
      expect(grew).toBeLessThan(64 * 1024 * 1024);
      // Within each entry's limit, past the total once the files are counted: refused before they are inflated.
      const total = Object.entries(files)
        .filter(([name]) => name !== 'files/file1')
        .reduce((sum, [, bytes]) => sum + bytes.length, 0);
      await expect(
        readArchive(zipWith(files), { limits: { maxEntryBytes: 1024 * 1024, maxTotalBytes: total } }),
      ).rejects.toThrow(
        `archive too large: its entries unpack to more than the import's limit of ${total} bytes in all (IMPORT_MAX_INFLATED_BYTES)`,
      );
      // With skipFiles the files are not inflated at all.
      expect(
        (
          await readArchive(zipWith(files), {
            skipFiles: true,
            limits: { maxEntryBytes: 1024 * 1024, maxTotalBytes: total },
          })
        ).records,
      ).toEqual(records());
    }, 30_000);
  });
});
