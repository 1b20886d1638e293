import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError, type PutResult } from './blob-storage.js';

/** Counts and hashes the bytes of a put on their way through; fails as soon as they pass the cap. */
export class BlobMeter extends Transform {
  private bytes = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return callback(new BlobTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    callback(null, chunk);
  }

  /** Once the body has ended. */
  result(): PutResult {
    return { bytes: this.bytes, sha256: this.hash.digest('hex') };
  }
}
