import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type BucketLocationConstraint,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
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

/** Multipart part size; with 2 parts in flight a put holds about 24 MiB, whatever the blob's size. */
const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server (MinIO, ...); absent: AWS itself. */
  endpoint?: string;
  /** Both or neither; neither: the SDK's default chain (environment, instance role, ...). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (MinIO and local servers need it). */
  forcePathStyle: boolean;
  /** Keys per ListObjectsV2 request (at most 1000, the default). */
  listPageSize?: number;
}

/**
 * Blobs as objects of one bucket. A put is a multipart upload (a single PutObject below one
 * part): S3 publishes an object only when the upload completes, which makes puts atomic; a
 * failed or refused put aborts the multipart upload, so no parts stay behind and are billed.
 */
export class S3Storage implements BlobStorage {
  readonly kind = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly region: string;
  private readonly listPageSize: number;

  constructor(options: S3StorageOptions) {
    const { accessKeyId, secretAccessKey } = options;
    if (!accessKeyId !== !secretAccessKey) {
      throw new Error('S3 credentials need both an access key id and a secret access key');
    }
    this.bucket = options.bucket;
    this.region = options.region;
    this.listPageSize = options.listPageSize ?? 1000;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    });
  }

  /** At start-up: creates the bucket when it does not exist yet. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (err) {
      if (!isS3Error(err, 'NotFound', 'NoSuchBucket')) throw err;
    }
    try {
      await this.client.send(
        new CreateBucketCommand({
          Bucket: this.bucket,
          // us-east-1 is the default location and refuses to be named.
          CreateBucketConfiguration:
            this.region === 'us-east-1' ? undefined : { LocationConstraint: this.region as BucketLocationConstraint },
        }),
      );
    } catch (err) {
      // Another replica starting at the same time created it first.
      if (!isS3Error(err, 'BucketAlreadyOwnedByYou')) throw err;
    }
  }

  async put(key: string, body: BlobBody, options: PutOptions = {}): Promise<PutResult> {
    assertValidKey(key);
    const meter = new BlobMeter(options.maxBytes);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: meter, ContentType: options.contentType },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
    });
    // The meter failing (too large, aborted, body error) fails the Upload's read of it, and the
    // Upload aborts its multipart upload before done() settles, so the put settles only once
    // nothing is left. (Not upload.abort(): its done() rejects before the abort request is even
    // sent.) An Upload failing stops reading, so the meter is ended too.
    const [fed, uploaded] = await Promise.allSettled([
      pipeline(body, meter, { signal: options.signal }),
      upload.done().catch((err: unknown) => {
        meter.destroy(err as Error);
        throw err;
      }),
    ]);
    // Complete means stored, whatever the feed reported after its last byte (e.g. a late abort).
    if (uploaded.status === 'fulfilled') return meter.result();
    throw fed.status === 'rejected' ? fed.reason : uploaded.reason;
  }

  async get(key: string, range?: BlobRange): Promise<Readable> {
    assertValidKey(key);
    if (range) assertValidRange(range);
    try {
      const { Body } = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      if (!(Body instanceof Readable)) throw new Error(`GetObject ${key} answered without a body stream`);
      return Body;
    } catch (err) {
      if (isS3Error(err, 'NoSuchKey')) throw new BlobNotFoundError(key);
      if (range && isS3Error(err, 'InvalidRange')) throw new BlobRangeError(range);
      throw err;
    }
  }

  async stat(key: string): Promise<BlobStat | null> {
    assertValidKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, bytes: head.ContentLength ?? 0, lastModified: head.LastModified ?? new Date(0) };
    } catch (err) {
      // A HEAD answer has no body, so a missing object is a bare 404 NotFound.
      if (isS3Error(err, 'NotFound', 'NoSuchKey')) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    // S3 answers 204 for a missing key too.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<BlobStat> {
    assertValidPrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix || undefined,
          MaxKeys: this.listPageSize,
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield { key: object.Key, bytes: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

function isS3Error(err: unknown, ...names: string[]): boolean {
  return err instanceof Error && names.includes(err.name);
}
