import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeDocx, makeZip } from '../../../../../test/fixtures/files/make-fixtures.mjs';
import { readZipDirectory } from '@kw/platform-zip';
import { assertArchiveWithinLimits, directoryOf } from './archive-guard.js';
import { ExtractionError } from './extraction-errors.js';

const FIXTURES = new URL('../../../../../test/fixtures/files/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));
const MiB = 1024 * 1024;
const LIMIT = 200 * MiB;

/** The reason an archive is refused for, or 'accepted'. */
async function verdict(bytes: Uint8Array, maxUnpackedBytes = LIMIT): Promise<string> {
  try {
    await assertArchiveWithinLimits(bytes, maxUnpackedBytes);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ExtractionError)) throw error;
    return error.reason;
  }
}

/** Overwrites a 16-bit field of the first central directory entry. */
function patchDirectory(zip: Uint8Array, field: number, value: number): Uint8Array {
  const copy = Buffer.from(zip);
  copy.writeUInt16LE(value, copy.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + field);
  return copy;
}

describe('readZipDirectory', () => {
  it('lists the entries of a DOCX with their declared sizes', () => {
    expect(readZipDirectory(fixture('zip-bomb.docx'))).toEqual([
      expect.objectContaining({ name: '[Content_Types].xml', method: 8, uncompressedSize: 430, localHeaderOffset: 0 }),
      expect.objectContaining({ name: '_rels/.rels', method: 8, uncompressedSize: 298 }),
      expect.objectContaining({
        name: 'word/document.xml',
        method: 8,
        uncompressedSize: 48 * MiB,
        compressedSize: 49141,
      }),
    ]);
  });

  it('reads zip64 records and extra fields the same way', () => {
    const classic = readZipDirectory(makeDocx(['x'], { documentSize: 2 * MiB }));
    const zip64 = readZipDirectory(makeDocx(['x'], { documentSize: 2 * MiB, zip64: true }));
    expect(
      zip64.map(({ name, method, compressedSize, uncompressedSize }) => [
        name,
        method,
        compressedSize,
        uncompressedSize,
      ]),
    ).toEqual(
      classic.map(({ name, method, compressedSize, uncompressedSize }) => [
        name,
        method,
        compressedSize,
        uncompressedSize,
      ]),
    );
  });

  it('finds the end record behind an archive comment', () => {
    const zip = makeZip([{ name: 'a.txt', data: new Uint8Array(10) }]);
    const commented = Buffer.concat([zip, Buffer.from('a comment')]);
    commented.writeUInt16LE(9, zip.length - 2);
    expect(readZipDirectory(commented).map((entry) => entry.name)).toEqual(['a.txt']);
  });

  it.each<[string, Uint8Array]>([
    ['empty input', new Uint8Array(0)],
    ['not a zip', new TextEncoder().encode('just some text, long enough to look for an end record in')],
    ['a truncated zip', fixture('sample.docx').subarray(0, 900)],
    ['a zip cut before its end record', fixture('sample.docx').subarray(0, -1)],
    [
      'a directory pointing past the file',
      (() => {
        const zip = Buffer.from(fixture('sample.docx'));
        zip.writeUInt32LE(0x7fffffff, zip.length - 6);
        return zip;
      })(),
    ],
    [
      'an entry count beyond the directory',
      (() => {
        const zip = Buffer.from(fixture('sample.docx'));
        zip.writeUInt16LE(60000, zip.length - 12);
        return zip;
      })(),
    ],
  ])('calls %s malformed', (_, bytes) => {
    expect(() => directoryOf(bytes)).toThrow(expect.objectContaining({ reason: 'malformed' }));
  });
});

describe('assertArchiveWithinLimits', () => {
  it('accepts a normal DOCX', async () => {
    expect(await verdict(fixture('sample.docx'))).toBe('accepted');
  });

  it('refuses the committed zip bomb from its compression ratio', async () => {
    expect(await verdict(fixture('zip-bomb.docx'))).toBe('archive_too_large');
  });

  it('refuses archives whose declared sizes add up past the limit', async () => {
    // Stored entries: a ratio of 1, only the sum is too much.
    const entries = [1, 2, 3].map((n) => ({ name: `part${n}.bin`, data: new Uint8Array(MiB).fill(n), store: true }));
    expect(await verdict(makeZip(entries), 3 * MiB)).toBe('accepted');
    expect(await verdict(makeZip(entries), 3 * MiB - 1)).toBe('archive_too_large');
  });

  it('lets small entries compress absurdly', async () => {
    expect(await verdict(makeZip([{ name: 'empty.xml', data: new Uint8Array(MiB) }]))).toBe('accepted');
  });

  it('refuses an entry that inflates past the size its directory declares', async () => {
    const liar = makeDocx(['x'], { documentSize: 16 * MiB, declaredDocumentSize: 4000 });
    expect(readZipDirectory(liar)[2].uncompressedSize).toBe(4000);
    expect(await verdict(liar)).toBe('archive_too_large');
  });

  it('calls an entry shorter than declared, or not deflate data, malformed', async () => {
    expect(await verdict(makeDocx(['x'], { declaredDocumentSize: 100_000 }))).toBe('malformed');
    const garbled = Buffer.from(
      makeZip([{ name: 'a.xml', data: new TextEncoder().encode('<a>hello hello hello</a>') }]),
    );
    garbled.fill(0xff, 30 + 'a.xml'.length, 30 + 'a.xml'.length + 4);
    expect(await verdict(garbled)).toBe('malformed');
  });

  it('calls a missing local header malformed', async () => {
    const zip = Buffer.from(fixture('sample.docx'));
    zip.writeUInt32LE(0, 0);
    expect(await verdict(zip)).toBe('malformed');
  });

  it('refuses encrypted entries and exotic compression methods as unsupported', async () => {
    const zip = fixture('sample.docx');
    expect(await verdict(patchDirectory(zip, 8, 0x0801))).toBe('unsupported');
    expect(await verdict(patchDirectory(zip, 10, 12))).toBe('unsupported'); // bzip2
  });
});
