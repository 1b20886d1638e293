import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BlobTooLargeError, createBlobStorage, type BlobStorage } from './index.js';
import { S3Storage } from './s3-storage.js';
import { startS3rver, type S3rverFixture } from './s3rver-fixture.js';
import { describeBlobStorageConformance } from './storage-conformance.js';

const MiB = 1024 * 1024;
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }; // s3rver's built-in account

async function s3Storage(fixture: S3rverFixture, bucket: string, listPageSize?: number): Promise<S3Storage> {
  const storage = new S3Storage({
    endpoint: fixture.endpoint,
    bucket,
    region: 'us-east-1',
    forcePathStyle: true,
    listPageSize,
    ...credentials,
  });
  await storage.ensureBucket();
  return storage;
}

async function* chunks(total: number) {
  for (let sent = 0; sent < total; sent += MiB) yield randomBytes(Math.min(MiB, total - sent));
}

describeBlobStorageConformance('S3Storage on s3rver', async () => {
  const fixture = await startS3rver();
  // Two keys per page, so listings cross pages with continuation tokens.
  const storage = await s3Storage(fixture, 'conformance', 2);
  return {
    storage,
    leftovers: () => fixture.openUploads('conformance'),
    async teardown() {
      await storage.close();
      await fixture.close();
    },
  };
});

describe('S3Storage on s3rver', () => {
  let fixture: S3rverFixture;
  let storage: S3Storage;

  beforeAll(async () => {
    fixture = await startS3rver();
    storage = await s3Storage(fixture, 'wire', 2);
  });
  afterAll(async () => {
    await storage?.close();
    await fixture?.close();
  });
  beforeEach(() => {
    fixture.requests.length = 0;
  });

  it('uploads a large blob in 8 MiB parts and a small one in one request', async () => {
    await storage.put('parts/large', chunks(20 * MiB));
    expect(fixture.requests.filter((op) => op === 'UploadPart')).toHaveLength(3);
    expect(fixture.requests).toContain('CompleteMultipartUpload');

    fixture.requests.length = 0;
    await storage.put('parts/small', chunks(MiB));
    expect(fixture.requests).toEqual(['PUT']);
  });

  it('aborts the multipart upload it began when the body passes maxBytes', async () => {
    await expect(storage.put('parts/too-large', chunks(20 * MiB), { maxBytes: 9 * MiB })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    expect(fixture.requests).toEqual(expect.arrayContaining(['CreateMultipartUpload', 'AbortMultipartUpload']));
    expect(fixture.requests).not.toContain('CompleteMultipartUpload');
    expect(await fixture.openUploads('wire')).toEqual([]);
    expect(await storage.stat('parts/too-large')).toBeNull();
  });

  it('follows continuation tokens through every page of a listing', async () => {
    for (const key of ['pages/1', 'pages/2', 'pages/3', 'pages/4', 'pages/5']) {
      await storage.put(key, Readable.from([Buffer.from(key)]));
    }
    fixture.requests.length = 0;
    const keys: string[] = [];
    for await (const blob of storage.list('pages/')) keys.push(blob.key);
    expect(keys.sort()).toEqual(['pages/1', 'pages/2', 'pages/3', 'pages/4', 'pages/5']);
    expect(fixture.requests).toEqual(['ListObjectsV2', 'ListObjectsV2 (continued)', 'ListObjectsV2 (continued)']);
  });

  it('stores the content type with the object', async () => {
    await storage.put('typed/doc', Readable.from([Buffer.from('%PDF')]), { contentType: 'application/pdf' });
    const client = new S3Client({ endpoint: fixture.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: 'wire', Key: 'typed/doc' }));
      expect(head.ContentType).toBe('application/pdf');
    } finally {
      client.destroy();
    }
  });

  it('refuses half a credential pair', () => {
    expect(
      () => new S3Storage({ bucket: 'b', region: 'us-east-1', forcePathStyle: true, accessKeyId: 'only-the-id' }),
    ).toThrow(/both/);
  });
});

describe('createBlobStorage with S3_BUCKET', () => {
  let fixture: S3rverFixture;
  beforeAll(async () => {
    fixture = await startS3rver();
  });
  afterAll(() => fixture?.close());

  it('returns S3 storage on a bucket it created, and accepts the bucket existing already', async () => {
    const config = {
      DATA_DIR: '/nonexistent',
      S3_ENDPOINT: fixture.endpoint,
      S3_BUCKET: 'created-at-start',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: true,
    };
    const storages: BlobStorage[] = [await createBlobStorage(config), await createBlobStorage(config)];
    try {
      expect(storages.map((s) => s.kind)).toEqual(['s3', 's3']);
      await storages[0]!.put('k', Readable.from([Buffer.from('v')]));
      expect((await storages[1]!.stat('k'))?.bytes).toBe(1);
    } finally {
      for (const storage of storages) await storage.close?.();
    }
  });
});
