import type { Readable } from 'node:stream';
import { FilesService, type FileRecord } from '@kw/contracts';
import { type AppError, badRequest } from '@kw/platform-errors';
import { BlobTooLargeError, type BlobStorage } from '@kw/platform-storage';
import type { ServiceClient } from '@kw/platform-transport';
import { sniffFileKind } from '../../domain/file-kind.js';
import { HeadCapture, pipeIntoHead, tooLarge } from '../../domain/upload-bytes.js';
import { malformedMultipart } from './multipart-parts.js';

const M = FilesService.method;

const isPrematureClose = (err: Error) => (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE';

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
  // The part may fail (the body ends inside it) or end early (the client went away mid-file),
  // even while the upload was being reserved: the head, and so the put, fails with its 400.
  let partFailure: AppError | undefined;
  const unwatch = pipeIntoHead(incoming.stream, head, (err) => {
    partFailure ??= isPrematureClose(err)
      ? badRequest('The upload ended before its file did')
      : malformedMultipart(err);
    return partFailure;
  });
  let stored;
  try {
    stored = await storage.put(begun.storageKey, head, { maxBytes: Number(begun.maxBytes) });
  } catch (err) {
    incoming.stream.unpipe(head);
    incoming.stream.resume();
    await client.call(M.abortUpload, { fileId: begun.fileId }).catch(() => undefined);
    if (err instanceof BlobTooLargeError) throw tooLarge(begun);
    throw partFailure ?? err;
  } finally {
    unwatch();
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
