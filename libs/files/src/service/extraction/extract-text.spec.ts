import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FileKind } from '../../domain/file-kind.js';
import {
  makeDocx,
  makeFlateBombPdf,
  makeLargeDocx,
  makeManyPagePdf,
  makePdf,
  makeZip,
} from '../../../../../test/fixtures/files/make-fixtures.mjs';
import { extractText } from './extract-text.js';
import type { ExtractionProgress } from './extracted-text.js';
import { ExtractionError } from './extraction-errors.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits } from './extraction-limits.js';

// The formats in this thread; run-extraction.spec.ts drives the same code through the worker.
const MiB = 1024 * 1024;
const FIXTURES = new URL('../../../../../test/fixtures/files/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));
const limits = (overrides: Partial<ExtractionLimits> = {}): ExtractionLimits => ({
  ...DEFAULT_EXTRACTION_LIMITS,
  ...overrides,
});

async function failure(promise: Promise<unknown>): Promise<ExtractionError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ExtractionError);
  return error as ExtractionError;
}

describe('extractText', () => {
  it.each<[string, FileKind, string]>([
    ['sample.pdf', 'pdf', 'zanzibarite'],
    ['sample.docx', 'docx', 'quokkafern'],
    ['sample.html', 'html', 'marmalith'],
    ['sample.md', 'markdown', 'tundraquill'],
    ['sample.txt', 'text', 'pelicanvex'],
    ['sample.csv', 'csv', 'oxbowmint'],
    ['sample.json', 'json', 'glimmerwold'],
  ])('reads %s (%s) down to its distinctive word', async (name, kind, word) => {
    const { text, truncated } = await extractText(fixture(name), kind, limits());
    expect(text).toContain(word);
    expect(truncated).toBe(false);
  });

  it('gives images and other files no text', async () => {
    expect(await extractText(fixture('sample.png'), 'image', limits())).toEqual({ text: '', truncated: false });
    expect(await extractText(fixture('sample.docx'), 'other', limits())).toEqual({ text: '', truncated: false });
  });

  it('reads a PDF page by page, reporting progress, and leaves the caller its bytes', async () => {
    const bytes = fixture('sample.pdf');
    const progress: ExtractionProgress[] = [];
    const result = await extractText(bytes, 'pdf', limits(), (p) => progress.push(p));
    expect(result).toEqual({
      text: 'The first page of the sample.\n\nThe second page names the zanzibarite.',
      pages: 2,
      truncated: false,
    });
    expect(progress).toEqual([
      { pagesDone: 0, pagesTotal: 2 },
      { pagesDone: 1, pagesTotal: 2 },
      { pagesDone: 2, pagesTotal: 2 },
    ]);
    expect(bytes.length).toBe(readFileSync(new URL('sample.pdf', FIXTURES)).length);
  });

  it('refuses a PDF with more pages than the limit before reading any', async () => {
    const progress: ExtractionProgress[] = [];
    const error = await failure(
      extractText(makePdf(['a', 'b', 'c']), 'pdf', limits({ maxPages: 2 }), (p) => progress.push(p)),
    );
    expect(error.reason).toBe('too_many_pages');
    expect(progress).toEqual([]);
    expect((await extractText(makePdf(['a', 'b']), 'pdf', limits({ maxPages: 2 }))).pages).toBe(2);
  });

  it('refuses a PDF whose streams inflate past maxUnpackedBytes, before pdf.js holds them', async () => {
    const bomb = makeFlateBombPdf(8, 'inflated');
    const error = await failure(extractText(bomb, 'pdf', limits({ maxUnpackedBytes: 4 * 1024 * 1024 })));
    expect(error.reason).toBe('too_much_memory');
    // The same file under a cap it fits is read as usual.
    expect((await extractText(bomb, 'pdf', limits())).text.trim()).toBe('inflated');
  });

  it('stops reading PDF pages once the text passes the cap', async () => {
    const progress: ExtractionProgress[] = [];
    const result = await extractText(makeManyPagePdf(50, 'x'.repeat(40)), 'pdf', limits({ maxTextChars: 100 }), (p) =>
      progress.push(p),
    );
    expect(result).toMatchObject({ pages: 50, truncated: true });
    expect(result.text).toHaveLength(100);
    expect(progress.at(-1)?.pagesDone).toBeLessThan(5);
  });

  it('maps unreadable and locked PDFs to malformed and unsupported', async () => {
    expect((await failure(extractText(fixture('malformed.pdf'), 'pdf', limits()))).reason).toBe('malformed');
    expect((await failure(extractText(new Uint8Array(0), 'pdf', limits()))).reason).toBe('malformed');
    expect((await failure(extractText(makePdf(['secret'], { encrypted: true }), 'pdf', limits()))).reason).toBe(
      'unsupported',
    );
  });

  it('refuses the committed zip bomb before inflating it', async () => {
    const error = await failure(extractText(fixture('zip-bomb.docx'), 'docx', limits()));
    expect(error.reason).toBe('archive_too_large');
    expect(error.message).toContain('word/document.xml');
  });

  it('refuses a DOCX whose XML passes maxDocxXmlBytes, and reads it within the bound', async () => {
    // About 110:1: within the archive's ratio and size limits, as the bomb that cost 95 s was.
    const docx = makeLargeDocx(8, { words: [1, 1], sessions: 1 });
    const error = await failure(extractText(docx, 'docx', limits({ maxDocxXmlBytes: 4 * MiB })));
    expect(error.reason).toBe('archive_too_large');
    expect(error.message).toContain('word/document.xml');
    const { text } = await extractText(docx, 'docx', limits({ maxDocxXmlBytes: 9 * MiB }));
    expect(text.startsWith('largedocx\n\n')).toBe(true);
  });

  it('maps a zip that is no DOCX, and bytes that are no zip, to malformed', async () => {
    const notDocx = makeZip([{ name: 'readme.txt', data: new TextEncoder().encode('hello') }]);
    expect((await failure(extractText(notDocx, 'docx', limits()))).reason).toBe('malformed');
    expect((await failure(extractText(fixture('sample.pdf'), 'docx', limits()))).reason).toBe('malformed');
  });

  it('reads a zip64 DOCX', async () => {
    const { text } = await extractText(makeDocx(['stored as zip64'], { zip64: true }), 'docx', limits());
    expect(text).toBe('stored as zip64');
  });

  it('cuts text to maxTextChars and says so, never splitting a surrogate pair', async () => {
    const long = new TextEncoder().encode('abc😀def'.repeat(1000));
    const cut = await extractText(long, 'text', limits({ maxTextChars: 4 }));
    expect(cut).toEqual({ text: 'abc', truncated: true });
    expect(await extractText(long, 'csv', limits({ maxTextChars: 5 }))).toEqual({ text: 'abc😀', truncated: true });
    const exact = await extractText(new TextEncoder().encode('abcde'), 'markdown', limits({ maxTextChars: 5 }));
    expect(exact).toEqual({ text: 'abcde', truncated: false });
  });

  it('reads big text files only as far as the cap needs', async () => {
    const threeByteChars = new TextEncoder().encode('€'.repeat(10_000)); // 30,000 bytes
    const { text, truncated } = await extractText(threeByteChars, 'text', limits({ maxTextChars: 100 }));
    expect(text).toBe('€'.repeat(100));
    expect(truncated).toBe(true);
  });

  it('pretty-prints JSON, and keeps what does not parse as written', async () => {
    const json = new TextEncoder().encode('{"a":[1,{"b":"ü"}]}');
    expect((await extractText(json, 'json', limits())).text).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": "ü"\n    }\n  ]\n}',
    );
    const broken = new TextEncoder().encode('{"a": oops');
    expect((await extractText(broken, 'json', limits())).text).toBe('{"a": oops');
  });

  it('gives the text in Unicode NFC, as search reads queries', async () => {
    const decomposed = 'cafe\u0301 Zu\u0308rich';
    const { text } = await extractText(new TextEncoder().encode(decomposed), 'text', limits());
    expect(text).toBe('caf\u00e9 Z\u00fcrich');
    const html = new TextEncoder().encode(`<p>${decomposed}</p>`);
    expect((await extractText(html, 'html', limits())).text).toContain('caf\u00e9');
  });

  it('decodes invalid UTF-8 with replacement characters rather than failing', async () => {
    const { text } = await extractText(Uint8Array.of(0x61, 0xff, 0x62), 'text', limits());
    expect(text).toBe('a\ufffdb');
  });
});
