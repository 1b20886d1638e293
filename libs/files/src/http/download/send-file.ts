import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FileRecord } from '@kw/contracts';
import { ifNoneMatchMatches } from '@kw/platform-http';
import type { BlobStorage } from '@kw/platform-storage';
import { contentDisposition } from '../../domain/file-name.js';
import { parseByteRange } from './byte-range.js';

/**
 * Streams a file's bytes with what a browser or a download manager needs: its type, a safe
 * file name, the SHA-256 as a strong ETag (a conditional GET answers 304, RFC 9110's weak comparison) and single byte ranges
 * (206). Uploaded content never runs in our origin: nosniff, and a sandbox for anything a browser
 * would render.
 */
export async function sendFile(
  storage: BlobStorage,
  file: FileRecord,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const etag = `"${file.sha256}"`;
  void reply
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    .header('cache-control', 'private, no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "sandbox; default-src 'none'")
    .header('content-disposition', contentDisposition(file.name, 'attachment'));
  if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) {
    await reply.status(304).send();
    return;
  }
  const size = Number(file.sizeBytes);
  let range;
  try {
    range = parseByteRange(request.headers.range, size);
  } catch (err) {
    // RFC 9110: a 416 names the current length.
    void reply.header('content-range', `bytes */${size}`);
    throw err;
  }
  void reply.header('content-type', file.mimeType || 'application/octet-stream');
  if (range) {
    const stream = await storage.get(file.storageKey, range);
    void reply
      .status(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', String(range.end - range.start + 1));
    await reply.send(stream);
    return;
  }
  void reply.header('content-length', String(size));
  await reply.send(size === 0 ? '' : await storage.get(file.storageKey));
}
