import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeFlateBombPdf, makeSlowPdf } from '../../../../../test/fixtures/files/make-fixtures.mjs';
import { ExtractionError } from './extraction-errors.js';
import { assertPdfStreamsWithinLimits } from './pdf-stream-guard.js';

const MiB = 1024 * 1024;

async function verdict(bytes: Uint8Array, maxBytes: number): Promise<string> {
  try {
    await assertPdfStreamsWithinLimits(bytes, maxBytes);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ExtractionError)) throw error;
    return error.reason;
  }
}

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

/** Objects in order from 1, with a minimal (wrong-offset) tail: the guard reads no xref. */
const pdf = (objects: string[]) =>
  Buffer.from(`%PDF-1.7\n${objects.map((body, i) => `${i + 1} 0 obj\n${body}\nendobj\n`).join('')}%%EOF\n`, 'latin1');
const stream = (data: Uint8Array, dictionary = '') =>
  `<< /Length ${data.length} /Filter /FlateDecode ${dictionary}>>\nstream\n${latin1(data)}\nendstream`;

describe('assertPdfStreamsWithinLimits', () => {
  const content = deflateSync(Buffer.alloc(3 * MiB, 0x20));

  it('counts a stream once for each reference to it', async () => {
    expect(await verdict(makeFlateBombPdf(3, 'x', 1), 10 * MiB)).toBe('accepted');
    expect(await verdict(makeFlateBombPdf(3, 'x', 3), 10 * MiB)).toBe('accepted');
    expect(await verdict(makeFlateBombPdf(3, 'x', 4), 10 * MiB)).toBe('too_much_memory');
  });

  it('finds references split by comments or white space, or kept in an object stream', async () => {
    const commented = pdf([
      '<< /Type /Page /Contents [4 0 R 4 %hide\n 0\r\n R 4 0 %x\nR 4 +0 R] >>',
      '<< >>',
      '<< >>',
      stream(content),
    ]);
    expect(await verdict(commented, 10 * MiB)).toBe('too_much_memory');
    // A `%` before the page object on its line, where pdf.js (reading from the object's offset) sees no comment.
    const behindPercent = Buffer.from(
      `%PDF-1.7\n1 0 obj\n${stream(content)}\nendobj\njunk % 2 0 obj << /Type /Page /Contents [1 0 R 1 0 R 1 0 R 1 0 R] >> endobj\n%%EOF\n`,
      'latin1',
    );
    expect(await verdict(behindPercent, 10 * MiB)).toBe('too_much_memory');
    // The page dictionary lives compressed in an object stream (/Type #4FbjStm, #-escaped).
    const page = '<< /Type /Page /Contents [3 0 R 3 0 R 3 0 R 3 0 R] >>';
    const objStm = deflateSync(Buffer.from(`2 0 ${page}`, 'latin1'));
    const packed = pdf([stream(objStm, '/Type /#4FbjStm /N 1 /First 4 '), '<< >>', stream(content)]);
    expect(await verdict(packed, 10 * MiB)).toBe('too_much_memory');
    expect(await verdict(packed, 13 * MiB)).toBe('accepted');
  });

  it('counts a content stream that many pages share once per page, as pdf.js inflates it', async () => {
    // 58 KB of content, shared: 20 pages are 1.2 MB, 40 pages 2.3 MB.
    expect(await verdict(makeSlowPdf(20, 2_000), 2 * MiB)).toBe('accepted');
    expect(await verdict(makeSlowPdf(40, 2_000), 2 * MiB)).toBe('too_much_memory');
  });
});
