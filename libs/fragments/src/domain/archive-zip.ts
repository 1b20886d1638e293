import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { ArchiveError } from './archive-error.js';

const inflateRawAsync = promisify(inflateRaw);

/**
 * How much an import may inflate (docs/portable-workspaces.md, "Bounds"): a zip's entries can
 * claim, and hold, far more than the zip's own size (a "zip bomb": 4 GiB of zeros deflate to
 * 4 MB), so what is inflated is capped per entry and in total, and only the entries an import
 * reads are inflated at all.
 */
export interface InflateLimits {
  /** The most one entry may hold uncompressed. */
  maxEntryBytes: number;
  /** The most all the entries read from one zip may hold together, uncompressed. */
  maxTotalBytes: number;
}

/** One entry of a zip's central directory: what it declares, not yet inflated. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  /** The uncompressed size the zip declares (a hostile zip may lie: inflation never goes past it). */
  size: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

const damaged = (why: string) => new ArchiveError(`not a readable zip (${why}); truncated or damaged`);

/**
 * A zip's entries, read from its central directory without inflating anything (a truncated zip
 * has none and is refused). An entry named twice is refused: which copy a reader takes differs
 * between readers, so such a zip could be checked as one thing and written as another.
 */
export function listZip(bytes: Uint8Array): Map<string, ZipEntry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (at: number) => view.getUint16(at, true);
  const u32 = (at: number) => view.getUint32(at, true);
  const u64 = (at: number) => Number(view.getBigUint64(at, true));
  let eocd = -1;
  for (let at = bytes.length - 22; at >= 0 && at >= bytes.length - 22 - 0xffff; at--)
    if (u32(at) === EOCD) {
      eocd = at;
      break;
    }
  if (eocd < 0) throw damaged('no end of central directory');
  let count = u16(eocd + 10);
  let offset = u32(eocd + 16);
  if (eocd >= 20 && u32(eocd - 20) === ZIP64_LOCATOR) {
    const at = u64(eocd - 12);
    if (at + 56 > bytes.length || u32(at) !== ZIP64_EOCD) throw damaged('bad ZIP64 end of central directory');
    count = u64(at + 32);
    offset = u64(at + 48);
  }
  const entries = new Map<string, ZipEntry>();
  const decoder = new TextDecoder('utf-8', { fatal: false });
  for (let i = 0, at = offset; i < count; i++) {
    if (at + 46 > bytes.length || u32(at) !== CENTRAL) throw damaged('bad central directory');
    const method = u16(at + 10);
    let compressedSize = u32(at + 20);
    let size = u32(at + 24);
    const nameLength = u16(at + 28);
    const extraLength = u16(at + 30);
    const commentLength = u16(at + 32);
    let localHeaderOffset = u32(at + 42);
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > bytes.length) throw damaged('bad central directory');
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    // ZIP64: the sizes and offset that do not fit 32 bits are in extra field 0x0001, in this order.
    for (let x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength;) {
      const id = u16(x);
      const length = u16(x + 2);
      if (id === 0x0001) {
        let y = x + 4;
        const next = () => {
          if (y + 8 > x + 4 + length) throw damaged('bad ZIP64 extra field');
          const value = u64(y);
          y += 8;
          return value;
        };
        if (size === MAX32) size = next();
        if (compressedSize === MAX32) compressedSize = next();
        if (localHeaderOffset === MAX32) localHeaderOffset = next();
      }
      x += 4 + length;
    }
    if (entries.has(name)) throw new ArchiveError('the zip holds two entries of this name', name);
    entries.set(name, { name, method, compressedSize, size, localHeaderOffset });
    at = end;
  }
  return entries;
}

/**
 * What an import inflated so far, against its limits: each entry is checked against both before
 * anything of it is inflated, by its declared size, and inflation stops at that size (an entry
 * whose data holds more than it declares is refused as damaged), so memory stays within the
 * limits whatever the zip claims.
 */
export class ZipInflater {
  private inflated = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly limits: InflateLimits,
  ) {}

  async read(entry: ZipEntry): Promise<Uint8Array> {
    const { name, size } = entry;
    if (size > this.limits.maxEntryBytes)
      throw new ArchiveError(
        `${size} bytes uncompressed, over the import's limit of ${this.limits.maxEntryBytes} bytes per entry`,
        name,
      );
    if (this.inflated + size > this.limits.maxTotalBytes)
      throw new ArchiveError(
        `the archive's entries hold more than the import's limit of ${this.limits.maxTotalBytes} bytes uncompressed in total`,
        name,
      );
    this.inflated += size;
    const at = entry.localHeaderOffset;
    if (
      at + 30 > this.bytes.length ||
      new DataView(this.bytes.buffer, this.bytes.byteOffset).getUint32(at, true) !== LOCAL
    )
      throw damaged(`${name}: bad local header`);
    const header = new DataView(this.bytes.buffer, this.bytes.byteOffset + at, 30);
    const start = at + 30 + header.getUint16(26, true) + header.getUint16(28, true);
    const end = start + entry.compressedSize;
    if (end > this.bytes.length) throw damaged(`${name}: its data runs past the end`);
    const data = this.bytes.subarray(start, end);
    if (entry.method === 0) {
      if (data.length !== size) throw new ArchiveError('stored size differs from its declared size; damaged', name);
      return data;
    }
    if (entry.method !== 8) throw new ArchiveError(`compression method ${entry.method} is not supported`, name);
    let out: Buffer;
    try {
      // On the thread pool; zlib stops (and fails) as soon as the output passes the declared size.
      out = await inflateRawAsync(data, { maxOutputLength: Math.max(size, 1) });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
        throw new ArchiveError(`inflates to more than the ${size} bytes its zip header declares; damaged`, name);
      throw new ArchiveError(`does not inflate (${(err as Error).message}); damaged`, name);
    }
    if (out.length !== size)
      throw new ArchiveError(`inflates to ${out.length} bytes where its zip header declares ${size}; damaged`, name);
    return out;
  }
}
