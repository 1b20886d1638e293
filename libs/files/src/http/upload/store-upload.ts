import type { Readable } from 'node:stream';
import { FilesService, type FileRecord } from '@kw/contracts';
import { BlobTooLargeError, type BlobStorage } from '@kw/platform-storage';
import type { ServiceClient } from '@kw/platform-transport';
import { sniffFileKind } from '../../domain/file-kind.js';
import { HeadCapture, tooLarge } from '../../domain/upload-bytes.js';
import { malformedMultipart } from './multipart-parts.js';

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
  // pipe() forwards no error: a part that fails (the body cut off inside it) must fail the write,
  // or storage would wait for an end that never comes. It may have failed already, while the
  // upload was being reserved.
  let partFailure: Error | null = incoming.stream.errored;
  const failWrite = (err: Error) => {
    partFailure ??= err;
    head.destroy(err);
  };
  incoming.stream.once('error', failWrite);
  let stored;
  try {
    if (partFailure) throw partFailure;
    stored = await storage.put(begun.storageKey, incoming.stream.pipe(head), { maxBytes: Number(begun.maxBytes) });
  } catch (err) {
    incoming.stream.unpipe(head);
    incoming.stream.resume();
    await client.call(M.abortUpload, { fileId: begun.fileId }).catch(() => undefined);
    if (err instanceof BlobTooLargeError) throw tooLarge(begun);
    if (partFailure) throw malformedMultipart(partFailure);
    throw err;
  } finally {
    incoming.stream.off('error', failWrite);
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
