import { constants, createInflate } from 'node:zlib';
import { ExtractionError } from './extraction-errors.js';

const latin1 = new TextDecoder('latin1');
/** How far before a `stream` keyword its dictionary is looked for (dictionaries are short). */
const DICTIONARY_WINDOW = 4096;
const IMAGE = /\/Subtype\s*\/Image(?![A-Za-z0-9])/;
/** How much of the file the reference count reads at a time. */
const LEX_CHUNK = 1024 * 1024;

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
 *
 * pdf.js does not cache a stream: it inflates it again for every reference it follows (a page's
 * /Contents array naming one stream 8 times is 8 copies, held together). So a non-image stream
 * counts as often as the document references it (`n g R`, at least once), references inside
 * object streams included.
 */
export async function assertPdfStreamsWithinLimits(bytes: Uint8Array, maxBytes: number): Promise<void> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The file's own references, and where each object begins, read twice: skipping comments as
  // pdf.js does, and reading them as syntax, in case a `%` where pdf.js does not parse (between
  // objects, or before an object on its line) would hide what follows it on the line.
  const lexers = [new ReferenceLexer(true), new ReferenceLexer(false)];
  for (let at = 0; at < pdf.length; at += LEX_CHUNK)
    for (const lexer of lexers) lexer.feed(pdf.subarray(at, at + LEX_CHUNK), at);
  for (const lexer of lexers) lexer.end();

  const weightOf = (objects: number[]) =>
    Math.max(1, ...lexers.flatMap(({ references }) => objects.map((object) => references.get(object) ?? 0)));
  const counted: Array<{ size: number; objects: number[] }> = [];
  // Kept as it goes; summed again at the end, with the references object streams added since.
  let running = 0;
  const total = () => counted.reduce((sum, { size, objects }) => sum + size * weightOf(objects), 0);
  const over = `more than ${maxBytes} bytes, each stream counted as often as it is referenced`;

  for (const { dictionary, data, keyword } of streams(pdf)) {
    const image = IMAGE.test(
      dictionary.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    );
    if (image) {
      if ((await inflatedSize(data, maxBytes)) > maxBytes) throw tooMuch(`an image stream passes ${maxBytes} bytes`);
      continue;
    }
    const objects = lexers.flatMap(({ headers }) => objectBefore(headers, keyword) ?? []);
    // Its decoded bytes are read for references too: an object stream holds dictionaries.
    const inner = lexers.map((lexer) => new ReferenceLexer(lexer.skipsComments, lexer.references));
    const weight = weightOf(objects);
    const size = await inflatedSize(data, Math.floor((maxBytes - running) / weight), inner);
    for (const lexer of inner) lexer.end();
    counted.push({ size, objects });
    running += size * weight;
    if (running > maxBytes) throw tooMuch(over);
  }
  if (total() > maxBytes) throw tooMuch(over);
}

/** The object a stream belongs to: the number of the last `n g obj` header before its keyword. */
function objectBefore(headers: Array<{ at: number; object: number }>, keyword: number): number | undefined {
  let low = 0;
  let high = headers.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (headers[middle].at < keyword) low = middle + 1;
    else high = middle;
  }
  return low > 0 ? headers[low - 1].object : undefined;
}

/**
 * Each stream's keyword position, dictionary text and raw data. Every stream is tried, whatever
 * its /Filter says (a name may be #-escaped or an indirect object): data that is not zlib fails
 * at its first two bytes and counts nothing.
 */
function* streams(pdf: Buffer): Generator<{ keyword: number; dictionary: string; data: Buffer }> {
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
    yield { keyword, dictionary, data: pdf.subarray(start, at) };
  }
}

/**
 * Counts `n g R` references in PDF syntax fed to it in pieces, as pdf.js's lexer reads them
 * (`+5` or `5.0` is an integer), and notes where each `n g obj` begins. Comments are white space
 * when `skipsComments`, else their text is read too. Strings are not skipped: a reference-like
 * string counts too, which errs on the safe side, and no string can hide a reference.
 */
class ReferenceLexer {
  readonly headers: Array<{ at: number; object: number }> = [];
  private length = 0;
  private tokenAt = 0;
  /** The token so far as a whole non-negative number (NaN once it cannot be one). */
  private value = 0;
  private fraction = false;
  /** Whether the token so far is `R`, or a prefix of `obj` (bit 1: o, 2: ob, 4: obj). */
  private isR = false;
  private obj = 0;
  private comment = false;
  /** The two tokens before this one, as integers (NaN when not). */
  private a = NaN;
  private b = NaN;

  constructor(
    readonly skipsComments: boolean,
    readonly references = new Map<number, number>(),
  ) {}

  feed(chunk: Uint8Array, offset = 0): void {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (this.comment) {
        if (byte === 0x0a || byte === 0x0d) this.comment = false;
        continue;
      }
      switch (byte) {
        case 0x00:
        case 0x09:
        case 0x0a:
        case 0x0c:
        case 0x0d:
        case 0x20:
          if (this.length > 0) this.endToken();
          break;
        case 0x25: // %
          if (this.length > 0) this.endToken();
          this.comment = this.skipsComments;
          break;
        case 0x28: // ( ) < > [ ] { } /
        case 0x29:
        case 0x3c:
        case 0x3e:
        case 0x5b:
        case 0x5d:
        case 0x7b:
        case 0x7d:
        case 0x2f:
          if (this.length > 0) this.endToken();
          this.a = this.b = NaN;
          break;
        default:
          this.character(byte, offset + i);
      }
    }
  }

  end(): void {
    if (this.length > 0) this.endToken();
  }

  private character(byte: number, at: number): void {
    const first = this.length === 0;
    if (first) this.tokenAt = at;
    this.length++;
    if (byte >= 0x30 && byte <= 0x39) {
      if (this.fraction) {
        if (byte !== 0x30) this.value = NaN;
      } else this.value = this.value * 10 + (byte - 0x30);
    } else if (byte === 0x2e && !this.fraction) this.fraction = true;
    else if (!(byte === 0x2b && first)) this.value = NaN;
    this.isR = first && byte === 0x52;
    this.obj =
      first && byte === 0x6f ? 1 : this.obj === 1 && byte === 0x62 ? 2 : this.obj === 2 && byte === 0x6a ? 4 : 0;
  }

  private endToken(): void {
    const { a, b } = this;
    if (this.length === 1 && this.isR && a >= 0 && b >= 0) this.references.set(a, (this.references.get(a) ?? 0) + 1);
    else if (this.length === 3 && this.obj === 4 && a >= 0 && b >= 0)
      this.headers.push({ at: this.tokenAt, object: a });
    this.a = b;
    this.b = this.value >= 0 && Number.isSafeInteger(this.value) ? this.value : NaN;
    this.length = 0;
    this.value = 0;
    this.fraction = false;
    this.isR = false;
    this.obj = 0;
  }
}

/**
 * Bytes the zlib data inflates to, counted up to just past `limit`; what is cut or corrupt counts
 * as far as it goes. The bytes go to `readers` on their way out.
 */
async function inflatedSize(data: Buffer, limit: number, readers: ReferenceLexer[] = []): Promise<number> {
  const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
  inflate.end(data);
  let size = 0;
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      for (const reader of readers) reader.feed(chunk);
      size += chunk.length;
      if (size > limit) break; // leaving the loop destroys the stream
    }
  } catch {
    // pdf.js reads what inflates before the damage, as counted.
  }
  return size;
}
