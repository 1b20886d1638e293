import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { FilesService, type FileRecord } from '@kw/contracts';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { planLimitError } from '@kw/platform-entitlements';
import { BlobTooLargeError, type BlobStorage } from '@kw/platform-storage';
import type { ServiceClient } from '@kw/platform-transport';
import { SNIFF_HEAD_BYTES, sniffFileKind } from '../../domain/file-kind.js';

const M = FilesService.method;

export interface UploadTarget {
  workspaceId: string;
  fragmentId: string;
  description: string;
}

export interface IncomingFile {
  fileName: string;
  declaredMimeType: string;
  stream: Readable;
}

/** Passes bytes through and keeps the first few, for sniffing once the blob is stored. */
class HeadCapture extends Transform {
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

function tooLarge(begun: { limitedBy: string; maxBytes: bigint; planMaxBytes: bigint; planId: string }): AppError {
  const maxBytes = Number(begun.maxBytes);
  const limitedBy = begun.limitedBy;
  // The plan's storage (docs/plans.md): 403 like every plan limit, with the one refusal's
  // fields (limit, max: the plan's storageBytes, planId) and what was left (`left`).
  if (limitedBy === 'plan') {
    return planLimitError('storageBytes', "The file is larger than the storage the workspace's plan has left", {
      max: Number(begun.planMaxBytes),
      planId: begun.planId,
      left: maxBytes,
    });
  }
  if (limitedBy === 'quota') {
    return new AppError({
      status: 413,
      code: ErrorCode.QUOTA_EXCEEDED,
      message: 'The file is larger than the storage the workspace has left',
      details: { limit: maxBytes },
    });
  }
  return new AppError({
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: `The file is larger than ${maxBytes} bytes`,
    details: { limit: maxBytes },
  });
}

/**
 * One file of an upload: reserve it (authorization, quota, hosted-zone check: before any byte is
 * stored), stream it to storage with the cap (413 as soon as it is passed, nothing kept), then
 * record size, SHA-256 and the sniffed type and start processing.
 */
export async function storeUpload(
  client: ServiceClient,
  storage: BlobStorage,
  incoming: IncomingFile,
  target: UploadTarget,
): Promise<FileRecord> {
  const begun = await client.call(M.beginUpload, {
    workspaceId: target.workspaceId,
    fileName: incoming.fileName,
    declaredMimeType: incoming.declaredMimeType,
    fragmentId: target.fragmentId,
    description: target.description,
  });
  const head = new HeadCapture();
  let stored;
  try {
    stored = await storage.put(begun.storageKey, incoming.stream.pipe(head), { maxBytes: Number(begun.maxBytes) });
  } catch (err) {
    incoming.stream.unpipe(head);
    incoming.stream.resume();
    await client.call(M.abortUpload, { fileId: begun.fileId }).catch(() => undefined);
    if (err instanceof BlobTooLargeError) throw tooLarge(begun);
    throw err;
  }
  const sniffed = await sniffFileKind(head.head, incoming.fileName, incoming.declaredMimeType);
  const { file } = await client.call(M.completeUpload, {
    fileId: begun.fileId,
    sizeBytes: BigInt(stored.bytes),
    sha256: stored.sha256,
    mimeType: sniffed.mimeType,
    kind: sniffed.kind,
  });
  return file!;
}
