import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../../../test/fixtures/files/make-fixtures.mjs';
import { SNIFF_HEAD_BYTES, sniffFileKind } from './file-kind.js';

const FIXTURES = new URL('../../../../test/fixtures/files/', import.meta.url);
const head = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES))).subarray(0, SNIFF_HEAD_BYTES);
const text = (content: string) => new TextEncoder().encode(content);

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('sniffFileKind', () => {
  it('recognises each fixture from its bytes and name', async () => {
    const expected: [string, string, string][] = [
      ['sample.pdf', 'pdf', 'application/pdf'],
      ['sample.docx', 'docx', DOCX],
      ['zip-bomb.docx', 'docx', DOCX],
      ['sample.png', 'image', 'image/png'],
      ['sample.html', 'html', 'text/html'],
      ['sample.md', 'markdown', 'text/markdown'],
      ['sample.txt', 'text', 'text/plain'],
      ['sample.csv', 'csv', 'text/csv'],
      ['sample.json', 'json', 'application/json'],
      ['malformed.pdf', 'pdf', 'application/pdf'],
    ];
    for (const [name, kind, mimeType] of expected)
      expect({ name, ...(await sniffFileKind(head(name), name, 'application/octet-stream')) }).toEqual({
        name,
        kind,
        mimeType,
      });
  });

  it('believes the bytes over the name and the declared type', async () => {
    expect(await sniffFileKind(head('sample.pdf'), 'notes.txt', 'text/plain')).toEqual({
      kind: 'pdf',
      mimeType: 'application/pdf',
    });
    expect(await sniffFileKind(head('sample.png'), 'page.html', 'text/html')).toEqual({
      kind: 'image',
      mimeType: 'image/png',
    });
    expect(await sniffFileKind(head('sample.docx'), 'data.csv', 'text/csv')).toEqual({ kind: 'docx', mimeType: DOCX });
    expect(await sniffFileKind(head('sample.txt'), 'report.pdf', 'application/pdf')).toEqual({
      kind: 'text',
      mimeType: 'text/plain',
    });
  });

  it('calls a zip that is not a DOCX other', async () => {
    const zip = makeZip([{ name: 'readme.txt', data: text('hello') }]);
    expect(await sniffFileKind(zip, 'archive.docx', DOCX)).toEqual({ kind: 'other', mimeType: 'application/zip' });
  });

  it('calls binary without a known signature other, application/octet-stream', async () => {
    const binary = Uint8Array.from({ length: 512 }, (_, i) => (i * 37) % 256);
    expect(await sniffFileKind(binary, 'notes.txt', 'text/plain')).toEqual({
      kind: 'other',
      mimeType: 'application/octet-stream',
    });
    expect(await sniffFileKind(text('text\u0000with a NUL'), 'a.txt', 'text/plain')).toMatchObject({ kind: 'other' });
    expect(await sniffFileKind(Uint8Array.of(0xc3, 0x28, 0x41), 'a.txt', 'text/plain')).toMatchObject({
      kind: 'other',
    });
  });

  it('tells text formats apart by extension, then declared type, then content', async () => {
    const cases: [string, string, string, string][] = [
      ['a,b\n1,2\n', 'table.CSV', '', 'csv'],
      ['# Title', 'readme.markdown', '', 'markdown'],
      ['<p>hi</p>', 'page.htm', '', 'html'],
      ['{"a":1}', 'notes.txt', '', 'text'], // the extension says text
      ['plain words', 'upload', 'text/markdown; charset=utf-8', 'markdown'],
      ['plain words', 'upload', 'text/csv', 'csv'],
      ['<!DOCTYPE html><title>x</title>', 'upload', 'application/octet-stream', 'html'],
      ['\n  <html><body>x</body></html>', 'page', '', 'html'],
      [' [1, 2, 3]', 'numbers', '', 'json'],
      ['{"a": ', 'cut.bin', '', 'json'],
      ['<?xml version="1.0"?><note>x</note>', 'note.xml', 'application/xml', 'text'],
      ['just words', 'x.constructor', '', 'text'],
      ['', 'empty', '', 'text'],
    ];
    for (const [content, name, mime, kind] of cases)
      expect({ name, kind: (await sniffFileKind(text(content), name, mime)).kind }).toEqual({ name, kind });
  });

  it('accepts a head that ends in the middle of a UTF-8 character', async () => {
    const bytes = text(`${'é'.repeat(10)}`).subarray(0, 19); // the last é is cut after its first byte
    expect(await sniffFileKind(bytes, 'accents.txt', '')).toEqual({ kind: 'text', mimeType: 'text/plain' });
  });
});
