/** A zip whose directory cannot be read; the message says what is wrong. */
export class MalformedZipError extends Error {
  override readonly name = 'MalformedZipError';

  constructor(readonly detail: string) {
    super(`The archive is not a valid zip: ${detail}.`);
  }
}

/** One file of a zip archive, as its central directory describes it (sizes are claims, not facts). */
export interface ZipEntry {
  name: string;
  /** General purpose bit flags; bit 0 means encrypted. */
  flags: number;
  /** 0 stored, 8 deflated; anything else is exotic. */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const END_OF_DIRECTORY_SIZE = 22;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_LOCATOR_SIZE = 20;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const DIRECTORY_ENTRY_SIZE = 46;
const ZIP64_EXTRA_FIELD = 0x0001;
/** A 16- or 32-bit field holding this value moved to the zip64 record or extra field. */
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

const malformed = (detail: string) => new MalformedZipError(detail);

/**
 * Reads a zip's central directory without inflating anything (file extraction's zip-bomb guard
 * and workspace imports judge the entries by it before inflating any): the End Of Central Directory
 * record is found from the end (it may be followed by a comment of up to 64 KiB), points at the
 * directory, and each directory entry gives an entry's method and sizes. Zip64 archives (sizes or
 * counts too large for the classic fields) are followed to their zip64 records.
 */
export function readZipDirectory(bytes: Uint8Array): ZipEntry[] {
  const zip = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfDirectory(zip);
  let count = zip.readUInt16LE(end + 10);
  let size = zip.readUInt32LE(end + 12);
  let offset = zip.readUInt32LE(end + 16);
  if (zip.readUInt16LE(end + 4) !== 0 || zip.readUInt16LE(end + 6) !== 0) throw malformed('split across disks');
  if (count === U16_MAX || size === U32_MAX || offset === U32_MAX) ({ count, size, offset } = readZip64End(zip, end));
  if (offset + size > end) throw malformed('the central directory lies outside the file');
  // Every entry takes at least 46 bytes: this bounds the loop by the file, not by the claimed count.
  if (count * DIRECTORY_ENTRY_SIZE > size) throw malformed('more entries than the directory can hold');

  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + DIRECTORY_ENTRY_SIZE > offset + size || zip.readUInt32LE(at) !== DIRECTORY_ENTRY)
      throw malformed(`central directory entry ${i} is broken`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const next = at + DIRECTORY_ENTRY_SIZE + nameLength + extraLength + commentLength;
    if (next > offset + size) throw malformed(`central directory entry ${i} runs past the directory`);
    const nameStart = at + DIRECTORY_ENTRY_SIZE;
    const entry: ZipEntry = {
      name: zip.toString('utf8', nameStart, nameStart + nameLength),
      flags: zip.readUInt16LE(at + 8),
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      uncompressedSize: zip.readUInt32LE(at + 24),
      localHeaderOffset: zip.readUInt32LE(at + 42),
    };
    applyZip64Extra(entry, zip.subarray(nameStart + nameLength, nameStart + nameLength + extraLength));
    entries.push(entry);
    at = next;
  }
  return entries;
}

function findEndOfDirectory(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - END_OF_DIRECTORY_SIZE - U16_MAX);
  for (let at = zip.length - END_OF_DIRECTORY_SIZE; at >= lowest; at--) {
    if (
      zip.readUInt32LE(at) === END_OF_DIRECTORY &&
      at + END_OF_DIRECTORY_SIZE + zip.readUInt16LE(at + 20) <= zip.length
    )
      return at;
  }
  throw malformed('no end of central directory record');
}

/** The zip64 end record, found through the locator that sits just before the classic one. */
function readZip64End(zip: Buffer, end: number): { count: number; size: number; offset: number } {
  const locator = end - ZIP64_LOCATOR_SIZE;
  if (locator < 0 || zip.readUInt32LE(locator) !== ZIP64_LOCATOR) throw malformed('no zip64 end of directory locator');
  const record = readU64(zip, locator + 8);
  if (record + 56 > locator || zip.readUInt32LE(record) !== ZIP64_END_OF_DIRECTORY)
    throw malformed('no zip64 end of directory record');
  return { count: readU64(zip, record + 32), size: readU64(zip, record + 40), offset: readU64(zip, record + 48) };
}

/** The zip64 extra field holds, in this order, whichever of the sizes and offset were saturated. */
function applyZip64Extra(entry: ZipEntry, extra: Buffer): void {
  const saturated = (['uncompressedSize', 'compressedSize', 'localHeaderOffset'] as const).filter(
    (field) => entry[field] === U32_MAX,
  );
  if (!saturated.length) return;
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === ZIP64_EXTRA_FIELD) {
      if (length < saturated.length * 8 || at + 4 + length > extra.length) throw malformed('a short zip64 extra field');
      saturated.forEach((field, i) => (entry[field] = readU64(extra, at + 4 + i * 8)));
      return;
    }
    at += 4 + length;
  }
  throw malformed(`entry ${entry.name} lacks its zip64 sizes`);
}

/** Past 2^53 precision is lost, but such a value is refused as too large or out of bounds anyway. */
const readU64 = (buffer: Buffer, at: number): number => Number(buffer.readBigUInt64LE(at));
