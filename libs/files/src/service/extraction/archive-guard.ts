import { createInflateRaw } from 'node:zlib';
import { MalformedZipError, readZipDirectory, type ZipEntry } from '@kw/platform-zip';
import { ExtractionError } from './extraction-errors.js';

/** Real parts (XML, images) deflate well under 100:1; past 200:1 the data is mostly one repeated byte, as in bombs. */
const MAX_COMPRESSION_RATIO = 200;
/** Small entries may compress absurdly (an empty part) without costing anything. */
const RATIO_CHECKED_FROM_BYTES = 1024 * 1024;
const LOCAL_HEADER = 0x04034b50;
const LOCAL_HEADER_SIZE = 30;

const tooLarge = (detail: string) =>
  new ExtractionError('archive_too_large', `The archive unpacks too large: ${detail}.`);

/**
 * The zip-bomb defence, run before a zip library inflates everything in memory: the central
 * directory's declared sizes must stay within `maxUnpackedBytes` in all, with no entry inflating
 * more than 200:1 past 1 MiB; then every entry is inflated as a stream and thrown away, to check
 * that none inflates past its declared size (a directory can lie; this costs CPU, never memory).
 * Answers the entries, their sizes now facts.
 */
export async function assertArchiveWithinLimits(bytes: Uint8Array, maxUnpackedBytes: number): Promise<ZipEntry[]> {
  const entries = directoryOf(bytes);
  let total = 0;
  for (const entry of entries) {
    if (entry.flags & 1) throw new ExtractionError('unsupported', `The archive is encrypted (${entry.name}).`);
    if (entry.method !== 0 && entry.method !== 8)
      throw new ExtractionError('unsupported', `The archive uses compression method ${entry.method} (${entry.name}).`);
    total += entry.uncompressedSize;
    if (total > maxUnpackedBytes) throw tooLarge(`more than ${maxUnpackedBytes} bytes in all`);
    if (
      entry.uncompressedSize > RATIO_CHECKED_FROM_BYTES &&
      entry.uncompressedSize > MAX_COMPRESSION_RATIO * entry.compressedSize
    )
      throw tooLarge(`${entry.name} claims ${entry.uncompressedSize} bytes from ${entry.compressedSize}`);
  }
  for (const entry of entries) await assertInflatesAsDeclared(bytes, entry);
  return entries;
}

async function assertInflatesAsDeclared(bytes: Uint8Array, entry: ZipEntry): Promise<void> {
  const data = entryData(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), entry);
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.uncompressedSize)
      throw new ExtractionError('malformed', `The stored entry ${entry.name} has two sizes.`);
    return;
  }
  const inflate = createInflateRaw();
  inflate.end(data);
  let size = 0;
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > entry.uncompressedSize) break; // leaving the loop destroys the stream
    }
  } catch (error) {
    throw new ExtractionError('malformed', `The entry ${entry.name} does not inflate.`, { cause: error });
  }
  if (size > entry.uncompressedSize)
    throw tooLarge(`${entry.name} inflates past its declared ${entry.uncompressedSize} bytes`);
  if (size < entry.uncompressedSize)
    throw new ExtractionError('malformed', `The entry ${entry.name} is shorter than its declared size.`);
}

/** An entry's compressed bytes: after its local header, whose name and extra field lengths may differ from the directory's. */
export function entryData(zip: Buffer, entry: ZipEntry): Buffer {
  const at = entry.localHeaderOffset;
  if (at + LOCAL_HEADER_SIZE > zip.length || zip.readUInt32LE(at) !== LOCAL_HEADER)
    throw new ExtractionError('malformed', `The local header of ${entry.name} is missing.`);
  const start = at + LOCAL_HEADER_SIZE + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  if (start + entry.compressedSize > zip.length)
    throw new ExtractionError('malformed', `The data of ${entry.name} runs past the end of the file.`);
  return zip.subarray(start, start + entry.compressedSize);
}

/** The zip's directory; one that cannot be read fails the extraction as malformed. */
export function directoryOf(bytes: Uint8Array): ZipEntry[] {
  try {
    return readZipDirectory(bytes);
  } catch (err) {
    if (err instanceof MalformedZipError) throw new ExtractionError('malformed', err.message, { cause: err });
    throw err;
  }
}
