import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { MalformedZipError, readZipDirectory } from '@kw/platform-zip';
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

const LOCAL = 0x04034b50;

const damaged = (why: string) => new ArchiveError(`not a readable zip (${why}); truncated or damaged`);

/**
 * A zip's entries, read from its central directory without inflating anything (a truncated zip
 * has none and is refused). An entry named twice is refused: which copy a reader takes differs
 * between readers, so such a zip could be checked as one thing and written as another.
 */
export function listZip(bytes: Uint8Array): Map<string, ZipEntry> {
  let directory: ReturnType<typeof readZipDirectory>;
  try {
    directory = readZipDirectory(bytes);
  } catch (err) {
    if (err instanceof MalformedZipError) throw damaged(err.detail);
    throw err;
  }
  const entries = new Map<string, ZipEntry>();
  for (const { name, method, compressedSize, uncompressedSize, localHeaderOffset } of directory) {
    if (entries.has(name)) throw new ArchiveError('the zip holds two entries of this name', name);
    entries.set(name, { name, method, compressedSize, size: uncompressedSize, localHeaderOffset });
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
