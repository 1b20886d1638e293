import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BlobNotFoundError,
  BlobRangeError,
  BlobTooLargeError,
  type BlobStat,
  type BlobStorage,
} from './blob-storage.js';

export interface ConformanceSubject {
  storage: BlobStorage;
  /** What the backend holds besides complete blobs: partial files, open multipart uploads. */
  leftovers(): Promise<string[]>;
  teardown(): Promise<void>;
}

const MiB = 1024 * 1024;
/** Odd-sized chunks, so no chunk edge lines up with a part or buffer boundary. */
const CHUNK = 1_000_003;

/** A stream of `total` random bytes, hashed as generated; `beforeChunk` runs before each chunk after the first. */
function generated(total: number, beforeChunk?: (sent: number) => void | Promise<void>) {
  const hash = createHash('sha256');
  const progress = { sent: 0, sha256: () => hash.digest('hex') };
  async function* body(): AsyncGenerator<Uint8Array> {
    while (progress.sent < total) {
      if (progress.sent > 0) await beforeChunk?.(progress.sent);
      const chunk = randomBytes(Math.min(CHUNK, total - progress.sent));
      hash.update(chunk);
      progress.sent += chunk.length;
      yield chunk;
    }
  }
  return { body: body(), progress };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function collect(blobs: AsyncIterable<BlobStat>): Promise<BlobStat[]> {
  const all: BlobStat[] = [];
  for await (const blob of blobs) all.push(blob);
  return all.sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * The behaviour every BlobStorage adapter must have, registered as one vitest suite; an
 * adapter's spec calls it with a fresh, empty storage. Each test uses keys of its own.
 */
export function describeBlobStorageConformance(name: string, setup: () => Promise<ConformanceSubject>): void {
  describe(`BlobStorage conformance: ${name}`, () => {
    let subject: ConformanceSubject;
    let storage: BlobStorage;

    beforeAll(async () => {
      subject = await setup();
      storage = subject.storage;
    });
    afterAll(async () => subject?.teardown());

    /** Nothing under `key`, nothing half-written anywhere. */
    async function expectNothingLeft(key: string): Promise<void> {
      expect(await storage.stat(key)).toBeNull();
      expect(await collect(storage.list(key))).toEqual([]);
      expect(await subject.leftovers()).toEqual([]);
    }

    it('stores a few KB under a nested key and reads back the same bytes, size and SHA-256', async () => {
      const data = randomBytes(5_000);
      const key = 'roundtrip/ws_1/f_1.bin';
      expect(await storage.put(key, Readable.from([data.subarray(0, 1_000), data.subarray(1_000)]))).toEqual({
        bytes: data.length,
        sha256: sha256(data),
      });
      expect((await readAll(await storage.get(key))).equals(data)).toBe(true);
      const stat = await storage.stat(key);
      expect(stat).toMatchObject({ key, bytes: data.length });
      expect(Number.isNaN(stat!.lastModified.getTime())).toBe(false);
    });

    it('streams a ~20 MiB body through and reports the size and SHA-256 of what arrived', async () => {
      const { body, progress } = generated(20 * MiB + 123);
      const result = await storage.put('big/20mib', body);
      const expected = progress.sha256();
      expect(result).toEqual({ bytes: 20 * MiB + 123, sha256: expected });
      expect(await sha256Of(await storage.get('big/20mib'))).toBe(expected);
      expect((await storage.stat('big/20mib'))?.bytes).toBe(20 * MiB + 123);
    });

    it('stores an empty blob', async () => {
      expect(await storage.put('empty/zero', Readable.from([]))).toEqual({ bytes: 0, sha256: sha256(Buffer.alloc(0)) });
      expect((await readAll(await storage.get('empty/zero'))).length).toBe(0);
      expect((await storage.stat('empty/zero'))?.bytes).toBe(0);
    });

    it('reads byte ranges: the first byte, the middle, the last byte, and an end past the last byte', async () => {
      const data = randomBytes(5_000);
      await storage.put('range/blob', Readable.from([data]));
      const read = async (start: number, end: number) => readAll(await storage.get('range/blob', { start, end }));
      expect(await read(0, 0)).toEqual(data.subarray(0, 1));
      expect(await read(1_234, 2_345)).toEqual(data.subarray(1_234, 2_346));
      expect(await read(4_999, 4_999)).toEqual(data.subarray(4_999));
      expect(await read(4_990, 10_000)).toEqual(data.subarray(4_990));
    });

    it('refuses a range that starts past the last byte or is malformed', async () => {
      await storage.put('range/small', Readable.from([randomBytes(100)]));
      for (const range of [
        { start: 100, end: 100 },
        { start: 3, end: 2 },
        { start: -1, end: 5 },
        { start: 0.5, end: 5 },
      ]) {
        await expect(storage.get('range/small', range)).rejects.toBeInstanceOf(BlobRangeError);
      }
    });

    it('answers a missing key with a null stat and BlobNotFoundError', async () => {
      expect(await storage.stat('missing/nothing')).toBeNull();
      await expect(storage.get('missing/nothing')).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(storage.get('missing/nothing', { start: 0, end: 9 })).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('deletes a blob, and deleting a missing key is no error', async () => {
      await storage.put('delete/me', Readable.from([Buffer.from('bye')]));
      await storage.delete('delete/me');
      await expect(storage.get('delete/me')).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await storage.stat('delete/me')).toBeNull();
      await storage.delete('delete/me');
      await storage.delete('delete/never-stored');
    });

    it('lists exactly the blobs whose keys start with a prefix, at any depth, with their sizes', async () => {
      const keys = ['list/a', 'list/b/c', 'list/b/d', 'list/bz', 'list/e/f/g', 'list/h', 'list/i'];
      for (const [i, key] of keys.entries()) await storage.put(key, Readable.from([randomBytes(i + 1)]));
      await storage.put('listed-not/x', Readable.from([Buffer.from('x')]));
      await storage.put('lis', Readable.from([Buffer.from('x')]));

      const listed = await collect(storage.list('list/'));
      expect(listed.map((b) => [b.key, b.bytes])).toEqual(keys.map((key, i) => [key, i + 1]));
      for (const blob of listed) expect(blob.lastModified).toBeInstanceOf(Date);
      expect((await collect(storage.list('list/b'))).map((b) => b.key)).toEqual(['list/b/c', 'list/b/d', 'list/bz']);
      expect((await collect(storage.list('list/b/'))).map((b) => b.key)).toEqual(['list/b/c', 'list/b/d']);
      expect(await collect(storage.list('list/nothing-here/'))).toEqual([]);
      expect((await collect(storage.list(''))).map((b) => b.key)).toEqual(expect.arrayContaining([...keys, 'lis']));
    });

    it('stores exactly maxBytes and refuses one byte more, leaving nothing', async () => {
      const data = randomBytes(100);
      expect((await storage.put('cap/exact', Readable.from([data]), { maxBytes: 100 })).bytes).toBe(100);
      const refused = storage.put('cap/over', Readable.from([data]), { maxBytes: 99 });
      await expect(refused).rejects.toBeInstanceOf(BlobTooLargeError);
      await expect(refused).rejects.toMatchObject({ limit: 99 });
      await expectNothingLeft('cap/over');
    });

    it('stops reading a body as soon as it passes maxBytes, leaving nothing', async () => {
      const { body, progress } = generated(20 * MiB);
      await expect(storage.put('cap/stream', body, { maxBytes: 9 * MiB })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(progress.sent).toBeLessThan(20 * MiB);
      await expectNothingLeft('cap/stream');
    });

    it('keeps the previous blob when a put over it fails', async () => {
      const previous = randomBytes(50);
      await storage.put('cap/kept', Readable.from([previous]));
      await expect(storage.put('cap/kept', Readable.from([randomBytes(51)]), { maxBytes: 50 })).rejects.toBeInstanceOf(
        BlobTooLargeError,
      );
      expect(await readAll(await storage.get('cap/kept'))).toEqual(previous);
      expect(await subject.leftovers()).toEqual([]);
    });

    it('leaves nothing of puts refused at their first bytes, however many at once', async () => {
      // Refused before the store has even opened its file: the removal must wait for the open.
      const refusals = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          storage.put(`cap/early-${i}`, Readable.from([randomBytes(11)]), { maxBytes: 10 }),
        ),
      );
      expect(refusals.every((r) => r.status === 'rejected' && r.reason instanceof BlobTooLargeError)).toBe(true);
      expect(await collect(storage.list('cap/early-'))).toEqual([]);
      expect(await subject.leftovers()).toEqual([]);
    });

    it('gives up a put whose signal aborts mid-stream, leaving nothing', async () => {
      const controller = new AbortController();
      const { body, progress } = generated(20 * MiB, (sent) => {
        if (sent >= 10 * MiB) controller.abort();
      });
      await expect(storage.put('abort/mid', body, { signal: controller.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(progress.sent).toBeLessThan(20 * MiB);
      await expectNothingLeft('abort/mid');
    });

    it('shows a blob only once its put has completed', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let paused!: () => void;
      const pausing = new Promise<void>((resolve) => (paused = resolve));
      const { body, progress } = generated(3 * CHUNK, async (sent) => {
        if (sent === CHUNK) {
          paused();
          await released;
        }
      });
      const putting = storage.put('atomic/blob', body);
      await pausing; // the first chunk has been taken
      expect(await storage.stat('atomic/blob')).toBeNull();
      expect(await collect(storage.list('atomic/'))).toEqual([]);
      await expect(storage.get('atomic/blob')).rejects.toBeInstanceOf(BlobNotFoundError);
      release();
      expect((await putting).bytes).toBe(3 * CHUNK);
      expect(await sha256Of(await storage.get('atomic/blob'))).toBe(progress.sha256());
    });

    it('replaces a blob on a second put under its key', async () => {
      await storage.put('overwrite/k', Readable.from([randomBytes(4_000)]));
      const second = randomBytes(1_000);
      await storage.put('overwrite/k', Readable.from([second]));
      expect(await readAll(await storage.get('overwrite/k'))).toEqual(second);
      expect((await storage.stat('overwrite/k'))?.bytes).toBe(1_000);
      expect((await collect(storage.list('overwrite/'))).map((b) => b.key)).toEqual(['overwrite/k']);
    });

    it('refuses keys that are not plain relative paths, in every method', async () => {
      const tooLong = ['x'.repeat(513), `a/${'s'.repeat(256)}`];
      const bad = [
        '',
        '/abs',
        '../up',
        'a/../../up',
        'a/./b',
        'a//b',
        'a/',
        '.partial/x',
        'a\\b',
        'a\0b',
        'sp ace',
        'é',
        ...tooLong,
      ];
      for (const key of bad) {
        await expect(storage.put(key, Readable.from([Buffer.from('x')])), key).rejects.toBeInstanceOf(TypeError);
        await expect(storage.get(key), key).rejects.toBeInstanceOf(TypeError);
        await expect(storage.stat(key), key).rejects.toBeInstanceOf(TypeError);
        await expect(storage.delete(key), key).rejects.toBeInstanceOf(TypeError);
      }
      await expect(collect(storage.list('../'))).rejects.toBeInstanceOf(TypeError);
      await expect(collect(storage.list('/'))).rejects.toBeInstanceOf(TypeError);
      // The longest key (s3rver's files add 15 characters to a segment, so segments stay below 240 here).
      const longest = `${'k'.repeat(200)}/${'k'.repeat(200)}/${'k'.repeat(110)}`;
      expect((await storage.put(longest, Readable.from([]))).bytes).toBe(0);
    });
  });
}
