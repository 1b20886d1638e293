import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createInflateRaw, inflateRaw } from 'node:zlib';
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
  /** The most all the entries read from one zip may hold together, uncompressed (IMPORT_MAX_INFLATED_BYTES). */
  maxTotalBytes: number;
}

/** The refusal of entries that together unpack past the import's total (decision: named as the files component's `archive_too_large`). */
export const archiveTooLarge = (limits: InflateLimits) =>
  new ArchiveError(
    `archive too large: its entries unpack to more than the import's limit of ${limits.maxTotalBytes} bytes in all (IMPORT_MAX_INFLATED_BYTES)`,
  );

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

  /**
   * Refuses, before anything of them is inflated, entries that together declare more than the
   * total: an import checks all it will read at once, so a bomb costs nothing to refuse.
   */
  assertWithinTotal(entries: Iterable<ZipEntry>): void {
    let total = this.inflated;
    for (const entry of entries) {
      this.assertEntrySize(entry);
      total += entry.size;
    }
    if (total > this.limits.maxTotalBytes) throw archiveTooLarge(this.limits);
  }

  private assertEntrySize({ name, size }: ZipEntry): void {
    if (size > this.limits.maxEntryBytes)
      throw new ArchiveError(
        `${size} bytes uncompressed, over the import's limit of ${this.limits.maxEntryBytes} bytes per entry`,
        name,
      );
  }

  /** Counts an entry against the limits by its declared size, before any byte of it is inflated. */
  private admit(entry: ZipEntry): void {
    this.assertEntrySize(entry);
    if (this.inflated + entry.size > this.limits.maxTotalBytes) throw archiveTooLarge(this.limits);
    this.inflated += entry.size;
  }

  /** The entry's compressed (or stored) bytes, after its local header. */
  private dataOf(entry: ZipEntry): Uint8Array {
    const { name, size } = entry;
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
    if (entry.method === 0 && data.length !== size)
      throw new ArchiveError('stored size differs from its declared size; damaged', name);
    if (entry.method !== 0 && entry.method !== 8)
      throw new ArchiveError(`compression method ${entry.method} is not supported`, name);
    return data;
  }

  /**
   * The whole entry in memory: for small ones (the manifest, a note). `counted: false` reads an
   * entry again that was counted once already (a note, checked, then written).
   */
  async read(entry: ZipEntry, { counted = true } = {}): Promise<Uint8Array> {
    const { name, size } = entry;
    if (counted) this.admit(entry);
    else this.assertEntrySize(entry);
    const data = this.dataOf(entry);
    if (entry.method === 0) return data;
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

  /**
   * The entry as it inflates, chunk by chunk (zlib on the thread pool): a reader that stops early
   * (a bad line) inflates no more of it, and nothing holds the whole entry. It fails as damaged as
   * soon as it passes its declared size, or at its end when it is shorter. `counted: false` reads
   * an entry again that was counted once already (a file's bytes, checked, then written).
   */
  async *stream(entry: ZipEntry, { counted = true } = {}): AsyncGenerator<Uint8Array> {
    const { name, size } = entry;
    if (counted) this.admit(entry);
    else this.assertEntrySize(entry);
    const data = this.dataOf(entry);
    if (entry.method === 0) {
      // Stored: already in memory, handed out in slices.
      for (let at = 0; at < data.length; at += STREAM_CHUNK) yield data.subarray(at, at + STREAM_CHUNK);
      return;
    }
    const inflate = createInflateRaw({ chunkSize: STREAM_CHUNK });
    Readable.from([data]).pipe(inflate);
    let length = 0;
    try {
      for await (const chunk of inflate as AsyncIterable<Buffer>) {
        length += chunk.length;
        if (length > size)
          throw new ArchiveError(`inflates to more than the ${size} bytes its zip header declares; damaged`, name);
        yield chunk;
      }
    } catch (err) {
      if (err instanceof ArchiveError) throw err;
      throw new ArchiveError(`does not inflate (${(err as Error).message}); damaged`, name);
    } finally {
      inflate.destroy();
    }
    if (length !== size)
      throw new ArchiveError(`inflates to ${length} bytes where its zip header declares ${size}; damaged`, name);
  }
}

const STREAM_CHUNK = 64 * 1024;
