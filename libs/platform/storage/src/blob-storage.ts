import type { Readable } from 'node:stream';

export type BlobBody = Readable | AsyncIterable<Uint8Array>;

export interface PutOptions {
  /** More bytes than this fail the put with BlobTooLargeError; exactly this many are stored. */
  maxBytes?: number;
  /** Kept by S3 (served with the object); local disk keeps no metadata. */
  contentType?: string;
  signal?: AbortSignal;
}

export interface PutResult {
  bytes: number;
  /** Hex SHA-256 of the stored bytes, computed while they streamed through. */
  sha256: string;
}

export interface BlobStat {
  key: string;
  bytes: number;
  lastModified: Date;
}

/** Inclusive byte offsets, as in an HTTP Range header. */
export interface BlobRange {
  start: number;
  end: number;
}

/**
 * Where file bytes live: local disk (embedded) or S3 (distributed). Keys are validated the
 * same way by every adapter (blob-key.ts), so a key that works on one works on the other.
 */
export interface BlobStorage {
  readonly kind: 'local' | 's3';
  /**
   * Streams `body` to `key`, never holding the whole blob in memory. A blob appears under `key`
   * only once complete, replacing any previous one in one step. Past `maxBytes` the put stops
   * reading and throws BlobTooLargeError; an aborted `signal` throws an AbortError. A failed put
   * leaves nothing behind (no partial file, no open multipart upload) and keeps the previous blob.
   */
  put(key: string, body: BlobBody, options?: PutOptions): Promise<PutResult>;
  /**
   * Streams the blob or a range of it. An `end` past the last byte reads to the last byte (as
   * HTTP does); a range starting past it throws BlobRangeError. Throws BlobNotFoundError.
   */
  get(key: string, range?: BlobRange): Promise<Readable>;
  stat(key: string): Promise<BlobStat | null>;
  /** Idempotent: deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob whose key starts with `prefix` (any depth, no order promised), paged internally. */
  list(prefix: string): AsyncIterable<BlobStat>;
  close?(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  override readonly name = 'BlobTooLargeError';

  constructor(readonly limit: number) {
    super(`blob is larger than ${limit} bytes`);
  }
}

export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';

  constructor(readonly key: string) {
    super(`no blob under ${JSON.stringify(key)}`);
  }
}

/** A malformed range, or one that starts past the last byte (HTTP 416). */
export class BlobRangeError extends RangeError {
  override readonly name = 'BlobRangeError';

  constructor(readonly range: BlobRange) {
    super(`byte range ${range.start}-${range.end} is not satisfiable`);
  }
}
