import { finished, type Readable, Transform, type TransformCallback } from 'node:stream';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { planLimitError } from '@kw/platform-entitlements';
import { SNIFF_HEAD_BYTES } from './file-kind.js';

// What an upload and an import of a file share while its bytes are stored: the head kept for
// sniffing its type, and the refusal of bytes past what the workspace has left.

/** Passes bytes through and keeps the first few, for sniffing once the blob is stored. */
export class HeadCapture extends Transform {
  private readonly parts: Buffer[] = [];
  private kept = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.kept < SNIFF_HEAD_BYTES) {
      const piece = chunk.subarray(0, SNIFF_HEAD_BYTES - this.kept);
      this.parts.push(Buffer.from(piece));
      this.kept += piece.length;
    }
    callback(null, chunk);
  }

  get head(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

/**
 * Pipes `source` into `head` and fails the head when the source fails or ends early
 * (ERR_STREAM_PREMATURE_CLOSE): pipe() passes on neither, and storage reading the head would wait
 * for the rest for ever. Either may have happened already (finished() then answers at once).
 * `failure` is what the head fails with, from the source's error. Returns what stops the watch.
 */
export function pipeIntoHead(
  source: Readable,
  head: HeadCapture,
  failure: (err: Error) => Error = (err) => err,
): () => void {
  const unwatch = finished(source, (err) => {
    if (err) head.destroy(failure(err));
  });
  source.pipe(head);
  return unwatch;
}

/** The part of beginUpload's answer that says which limit an upload is held to. */
export interface UploadLimit {
  limitedBy: string;
  maxBytes: bigint;
  /** Set when the plan's storage is the binding limit (`limitedBy: 'plan'`). */
  planMaxBytes?: bigint;
  planId?: string;
  /** Set when the deployment's quota is the binding limit (`limitedBy: 'quota'`). */
  quotaBytes?: bigint;
}

/** Bytes past `maxBytes` (BlobTooLargeError): the refusal of whichever limit `limitedBy` names (beginUpload's answer). */
export function tooLarge(begun: UploadLimit): AppError {
  const maxBytes = Number(begun.maxBytes);
  const limitedBy = begun.limitedBy;
  // The plan's storage (docs/plans.md): 403 like every plan limit, with the one refusal's
  // fields (limit, max: the plan's storageBytes, planId) and what was left (`left`).
  if (limitedBy === 'plan') {
    return planLimitError('storageBytes', "The file is larger than the storage the workspace's plan has left", {
      max: Number(begun.planMaxBytes ?? 0),
      planId: begun.planId ?? '',
      left: maxBytes,
    });
  }
  if (limitedBy === 'quota') {
    return new AppError({
      status: 413,
      code: ErrorCode.QUOTA_EXCEEDED,
      message: 'The file is larger than the storage the workspace has left',
      // As when the workspace is full: `limit` is the quota, `left` what remained of it.
      details: {
        ...(begun.quotaBytes ? { limit: Number(begun.quotaBytes), used: Number(begun.quotaBytes) - maxBytes } : {}),
        left: maxBytes,
      },
    });
  }
  return new AppError({
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: `The file is larger than ${maxBytes} bytes`,
    details: { limit: maxBytes },
  });
}
