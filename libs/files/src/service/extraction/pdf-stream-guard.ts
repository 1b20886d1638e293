import { constants, createInflate } from 'node:zlib';
import { ExtractionError } from './extraction-errors.js';

const latin1 = new TextDecoder('latin1');
/** How far before a `stream` keyword its dictionary is looked for (dictionaries are short). */
const DICTIONARY_WINDOW = 4096;
const IMAGE = /\/Subtype\s*\/Image(?![A-Za-z0-9])/;

const tooMuch = (detail: string) =>
  new ExtractionError('too_much_memory', `The PDF's compressed streams inflate too large: ${detail}.`);

/**
 * The flate-bomb defence, run before pdf.js reads the PDF: pdf.js holds a stream's decoded bytes
 * whole, in ArrayBuffers that the worker's heap limit does not cover, so a 1 MB stream that
 * inflates to 1 GiB took the process past 2 GB. Every zlib-compressed stream (Flate, the first
 * filter) is inflated here as a stream and thrown away, counting: one past `maxBytes`, or the
 * non-image streams together past it (text extraction decodes those; image XObjects it never
 * decodes), fails `too_much_memory`. Costs CPU, never memory. A stream that does not inflate is
 * left to pdf.js, which reports it as it does.
 */
export async function assertPdfStreamsWithinLimits(bytes: Uint8Array, maxBytes: number): Promise<void> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let textTotal = 0;
  for (const { dictionary, data } of streams(pdf)) {
    const image = IMAGE.test(
      dictionary.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    );
    const size = await inflatedSize(data, image ? maxBytes : maxBytes - textTotal);
    if (image) {
      if (size > maxBytes) throw tooMuch(`an image stream passes ${maxBytes} bytes`);
    } else {
      textTotal += size;
      if (textTotal > maxBytes) throw tooMuch(`more than ${maxBytes} bytes`);
    }
  }
}

/**
 * Each stream's dictionary text and raw data. Every stream is tried, whatever its /Filter says
 * (a name may be #-escaped or an indirect object): data that is not zlib fails at its first
 * two bytes and counts nothing.
 */
function* streams(pdf: Buffer): Generator<{ dictionary: string; data: Buffer }> {
  let at = 0;
  for (;;) {
    const keyword = pdf.indexOf('stream', at, 'latin1');
    if (keyword < 0) return;
    at = keyword + 6;
    if (keyword >= 3 && pdf.toString('latin1', keyword - 3, keyword) === 'end') continue; // `endstream`
    let start = at;
    if (pdf[start] === 0x0d) start++;
    if (pdf[start] === 0x0a) start++;
    const before = latin1.decode(pdf.subarray(Math.max(0, keyword - DICTIONARY_WINDOW), keyword));
    const dictionary = before.slice(before.lastIndexOf('obj') + 1);
    const end = pdf.indexOf('endstream', start, 'latin1');
    at = end < 0 ? pdf.length : end;
    yield { dictionary, data: pdf.subarray(start, at) };
  }
}

/** Bytes the zlib data inflates to, counted up to just past `limit`; what is cut or corrupt counts as far as it goes. */
async function inflatedSize(data: Buffer, limit: number): Promise<number> {
  const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
  inflate.end(data);
  let size = 0;
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) break; // leaving the loop destroys the stream
    }
  } catch {
    // pdf.js reads what inflates before the damage, as counted.
  }
  return size;
}
