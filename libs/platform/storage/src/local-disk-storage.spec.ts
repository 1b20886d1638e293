import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalDiskStorage, createBlobStorage, type BlobStat } from './index.js';
import { describeBlobStorageConformance } from './storage-conformance.js';

const partialsOf = (root: string) => readdir(path.join(root, '.partial')).catch(() => []);

describeBlobStorageConformance('LocalDiskStorage', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'kw-blobs-'));
  return {
    storage: new LocalDiskStorage(root),
    leftovers: () => partialsOf(root),
    teardown: () => rm(root, { recursive: true, force: true }),
  };
});

describe('LocalDiskStorage', () => {
  let parent: string;
  let root: string;
  let storage: LocalDiskStorage;

  beforeEach(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'kw-blobs-'));
    root = path.join(parent, 'root');
    storage = new LocalDiskStorage(root);
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  async function listAll(prefix = ''): Promise<BlobStat[]> {
    const all: BlobStat[] = [];
    for await (const blob of storage.list(prefix)) all.push(blob);
    return all;
  }

  it('keeps a blob as the file its key names, creating folders', async () => {
    await storage.put('ws_1/files/f_1', Readable.from([Buffer.from('hello')]));
    expect(await readFile(path.join(root, 'ws_1/files/f_1'), 'utf8')).toBe('hello');
  });

  it('writes nothing outside its root for a key that tries to escape it', async () => {
    for (const key of ['../escaped', 'a/../../escaped', `${parent}/escaped`]) {
      await expect(storage.put(key, Readable.from([Buffer.from('x')]))).rejects.toBeInstanceOf(TypeError);
    }
    expect(await readdir(parent)).toEqual([]);
  });

  it('writes a put in progress to .partial/ only, and removes it when the put fails', async () => {
    let fail!: (err: Error) => void;
    const failing = new Promise<never>((_, reject) => (fail = reject));
    let started!: () => void;
    const starting = new Promise<void>((resolve) => (started = resolve));
    async function* body() {
      yield Buffer.from('first part');
      started();
      await failing;
    }
    const putting = storage.put('ws_1/f_2', body());
    await starting;
    // The write stream opens its file asynchronously: wait for it (a bound on a hang, no timing assertion).
    await vi.waitFor(async () => expect(await partialsOf(root)).toHaveLength(1), { timeout: 10_000 });
    expect(existsSync(path.join(root, 'ws_1/f_2'))).toBe(false);
    fail(new Error('client went away'));
    await expect(putting).rejects.toThrow('client went away');
    expect(await partialsOf(root)).toEqual([]);
  });

  it('never lists partial files, and sweepPartials removes only those older than asked', async () => {
    await storage.put('ws_1/kept', Readable.from([Buffer.from('kept')]));
    await mkdir(path.join(root, '.partial'), { recursive: true });
    await writeFile(path.join(root, '.partial', 'crashed'), 'half');
    await writeFile(path.join(root, '.partial', 'in-progress'), 'half');
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(root, '.partial', 'crashed'), hourAgo, hourAgo);

    expect((await listAll()).map((b) => b.key)).toEqual(['ws_1/kept']);
    expect(await storage.sweepPartials(60_000)).toBe(1);
    expect(await partialsOf(root)).toEqual(['in-progress']);
    expect((await listAll()).map((b) => b.key)).toEqual(['ws_1/kept']);
  });

  it('sweeps and lists nothing before the first put', async () => {
    expect(await storage.sweepPartials(0)).toBe(0);
    expect(await listAll()).toEqual([]);
  });

  it('treats a folder of other keys as no blob', async () => {
    await storage.put('dir/child', Readable.from([Buffer.from('x')]));
    expect(await storage.stat('dir')).toBeNull();
    await expect(storage.get('dir')).rejects.toMatchObject({ name: 'BlobNotFoundError' });
    await storage.delete('dir');
    expect(await storage.stat('dir/child/below')).toBeNull();
    expect((await listAll('dir')).map((b) => b.key)).toEqual(['dir/child']);
  });
});

describe('createBlobStorage without S3_BUCKET', () => {
  it('stores files under DATA_DIR/files', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kw-data-'));
    try {
      const storage = await createBlobStorage({ DATA_DIR: dataDir, S3_FORCE_PATH_STYLE: true });
      expect(storage.kind).toBe('local');
      await storage.put('ws_1/f', Readable.from([Buffer.from('data')]));
      expect(await readFile(path.join(dataDir, 'files', 'ws_1/f'), 'utf8')).toBe('data');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
