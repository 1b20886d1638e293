import { createInflateRaw, inflateRawSync } from 'node:zlib';
import type { ZipEntry } from '@kw/platform-zip';
import { assertArchiveWithinLimits, entryData } from './archive-guard.js';
import { ExtractionError } from './extraction-errors.js';
import type { ExtractionLimits } from './extraction-limits.js';
import { XmlScanner } from './xml-scanner.js';
import { WordBodyText } from './word-body-text.js';

const OFFICE_DOCUMENT = /\/relationships\/officeDocument$/;
const FALLBACK_MAIN = 'word/document.xml';

const tooLarge = (detail: string) =>
  new ExtractionError('archive_too_large', `The archive unpacks too large: ${detail}.`);

/**
 * A DOCX's text, paragraphs separated by blank lines, as mammoth's raw text gave it. The archive
 * is checked first; then the main document is inflated as a stream and read by a streaming XML
 * scanner, stopping once the text passes twice `maxTextChars`: memory holds the text and one
 * piece of XML, never a DOM (mammoth's DOM took about 30 times the XML in heap: a report of 11 MiB
 * passed the worker's 256 MiB). A main document over `maxDocxXmlBytes` is refused before it is
 * inflated, which bounds the CPU.
 */
export async function docxText(bytes: Uint8Array, limits: ExtractionLimits): Promise<string> {
  const entries = await assertArchiveWithinLimits(bytes, limits.maxUnpackedBytes);
  const zip = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts = partsByName(entries);
  const main = parts.get(mainDocumentName(zip, parts, limits.maxDocxXmlBytes));
  if (!main) throw new ExtractionError('malformed', 'The DOCX has no main document part.');
  if (main.uncompressedSize > limits.maxDocxXmlBytes)
    throw tooLarge(`${main.name} holds ${main.uncompressedSize} bytes of XML, more than ${limits.maxDocxXmlBytes}`);

  const body = new WordBodyText(limits.maxTextChars * 2);
  const scanner = new XmlScanner(body);
  const decoder = new TextDecoder('utf-8');
  const data = entryData(zip, main);
  const xml = main.method === 0 ? pieces(data) : (createInflateRaw().end(data) as AsyncIterable<Buffer>);
  try {
    for await (const piece of xml) {
      scanner.write(decoder.decode(piece, { stream: true }));
      if (body.full) break; // leaving the loop destroys the stream
    }
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    throw new ExtractionError('malformed', `The entry ${main.name} does not inflate.`, { cause: error });
  }
  if (!body.full) {
    scanner.write(decoder.decode());
    scanner.end();
  }
  if (!body.hasBody) throw new ExtractionError('malformed', `${main.name} has no w:document with a w:body.`);
  return body.collected().trimEnd();
}

/** A stored part in pieces, as an inflated one comes. */
function* pieces(data: Buffer): Generator<Buffer> {
  for (let at = 0; at < data.length; at += 64 * 1024) yield data.subarray(at, at + 64 * 1024);
}

/** Entries by the names JSZip gave them (what mammoth looked parts up by): `.` and `..` resolved, the last wins. */
function partsByName(entries: ZipEntry[]): Map<string, ZipEntry> {
  const parts = new Map<string, ZipEntry>();
  for (const entry of entries) if (!entry.name.endsWith('/')) parts.set(resolve(entry.name), entry);
  return parts;
}

/** The main document, as mammoth found it: the package's officeDocument relationship that exists, else word/document.xml. */
function mainDocumentName(zip: Buffer, parts: Map<string, ZipEntry>, maxBytes: number): string {
  const rels = parts.get('_rels/.rels');
  if (!rels) return FALLBACK_MAIN;
  if (rels.uncompressedSize > maxBytes) throw tooLarge(`_rels/.rels holds more than ${maxBytes} bytes`);
  const data = entryData(zip, rels);
  let xml: string;
  try {
    xml = new TextDecoder('utf-8').decode(
      rels.method === 0 ? data : inflateRawSync(data, { maxOutputLength: Math.max(1, rels.uncompressedSize) }),
    );
  } catch (error) {
    throw new ExtractionError('malformed', 'The entry _rels/.rels does not inflate.', { cause: error });
  }
  const targets: string[] = [];
  const scanner = new XmlScanner({
    start(_namespace, name, attributes) {
      const type = attributes.get('Type');
      const target = attributes.get('Target');
      if (name === 'Relationship' && type && target && OFFICE_DOCUMENT.test(type))
        targets.push(target.replace(/^\/+/, ''));
    },
    end() {},
    text() {},
  });
  scanner.write(xml);
  scanner.end();
  return targets.find((target) => parts.has(target)) ?? FALLBACK_MAIN;
}

/** JSZip's name of an entry: empty, `.` and `..` segments resolved, as a path. */
function resolve(name: string): string {
  const segments = name.split('/');
  const kept: string[] = [];
  segments.forEach((segment, i) => {
    if (segment === '.' || (segment === '' && i !== 0 && i !== segments.length - 1)) return;
    if (segment === '..') kept.pop();
    else kept.push(segment);
  });
  return kept.join('/');
}
