import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, opendir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidKey, assertValidPrefix, assertValidRange } from './blob-key.js';
import { BlobMeter } from './blob-meter.js';
import {
  BlobNotFoundError,
  BlobRangeError,
  type BlobBody,
  type BlobRange,
  type BlobStat,
  type BlobStorage,
  type PutOptions,
  type PutResult,
} from './blob-storage.js';

/** Where puts write before their rename; no key can name it (keys never start with a dot). */
const PARTIAL_DIR = '.partial';

/**
 * Blobs as files under `rootDir`, one per key (`a/b/c` is `rootDir/a/b/c`). A put writes
 * `rootDir/.partial/<uuid>`, flushes it and renames it into place: the rename is atomic on one
 * file system, so readers see the old blob or the complete new one, and a crash leaves only
 * a partial file, which `list()` skips and `sweepPartials()` removes.
 */
export class LocalDiskStorage implements BlobStorage {
  readonly kind = 'local';
  private readonly root: string;
  private readonly partialDir: string;

  constructor(rootDir: string) {
    this.root = path.resolve(rootDir);
    this.partialDir = path.join(this.root, PARTIAL_DIR);
  }

  async put(key: string, body: BlobBody, options: PutOptions = {}): Promise<PutResult> {
    assertValidKey(key);
    const target = this.pathOf(key);
    const partial = path.join(this.partialDir, randomUUID());
    const meter = new BlobMeter(options.maxBytes);
    await mkdir(this.partialDir, { recursive: true });
    // flush: the bytes are on disk before the rename publishes them, so a crash cannot publish a torn file.
    const file = createWriteStream(partial, { flags: 'wx', flush: true });
    try {
      await pipeline(body, meter, file, { signal: options.signal });
      await mkdir(path.dirname(target), { recursive: true });
      await rename(partial, target);
    } catch (err) {
      // A pipeline refused early (too large, aborted) may end while the file is still being
      // opened: removed before the open completes, it would be created after, and left behind.
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      await rm(partial, { force: true });
      throw err;
    }
    return meter.result();
  }

  async get(key: string, range?: BlobRange): Promise<Readable> {
    assertValidKey(key);
    if (range) assertValidRange(range);
    // The open handle keeps reading this version even if a put replaces it meanwhile.
    const handle = await open(this.pathOf(key), 'r').catch((err: unknown) => {
      throw isMissing(err) ? new BlobNotFoundError(key) : err;
    });
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new BlobNotFoundError(key);
      if (range && range.start >= info.size) throw new BlobRangeError(range);
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async stat(key: string): Promise<BlobStat | null> {
    assertValidKey(key);
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { key, bytes: info.size, lastModified: info.mtime } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    try {
      await unlink(this.pathOf(key));
    } catch (err) {
      // EISDIR: `key` is only a folder of other keys, so there is no blob to delete.
      if (!isMissing(err) && (err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
    }
  }

  async *list(prefix: string): AsyncIterable<BlobStat> {
    assertValidPrefix(prefix);
    yield* this.walk(prefix.slice(0, prefix.lastIndexOf('/') + 1), prefix);
  }

  /** Removes partial files not written to for `olderThanMs` (left by a crash); returns how many. */
  async sweepPartials(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const name of await readdir(this.partialDir).catch(orWhenMissing([]))) {
      const file = path.join(this.partialDir, name);
      const info = await stat(file).catch(orWhenMissing(null));
      if (info && info.mtimeMs < cutoff) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** The blobs in folder `dirKey` ('' or ending in '/') and below whose keys start with `prefix`. */
  private async *walk(dirKey: string, prefix: string): AsyncGenerator<BlobStat> {
    const dir = await opendir(path.join(this.root, dirKey)).catch(orWhenMissing(null));
    if (!dir) return;
    for await (const entry of dir) {
      const key = dirKey + entry.name;
      // Dot entries (.partial/) are never keys.
      if (entry.name.startsWith('.') || !key.startsWith(prefix)) continue;
      if (entry.isDirectory()) {
        yield* this.walk(`${key}/`, prefix);
      } else if (entry.isFile()) {
        const blob = await this.stat(key);
        if (blob) yield blob; // null: deleted since the folder was read
      }
    }
  }

  private pathOf(key: string): string {
    return path.join(this.root, key);
  }
}

/** ENOTDIR: a segment of the path is a file, so nothing exists below it. */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function orWhenMissing<T>(value: T): (err: unknown) => T {
  return (err) => {
    if (isMissing(err)) return value;
    throw err;
  };
}
