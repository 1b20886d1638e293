import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FileRecord } from '@kw/contracts';
import { ifNoneMatchMatches } from '@kw/platform-http';
import type { BlobStorage } from '@kw/platform-storage';
import { contentDisposition } from '../../domain/file-name.js';
import { parseByteRange } from './byte-range.js';

/**
 * Streams a file's bytes with what a browser or a download manager needs: its type, a safe
 * file name, the SHA-256 as a strong ETag (a conditional GET answers 304, RFC 9110's weak comparison) and single byte ranges
 * (206; under an If-Range only when it holds the ETag). Uploaded content never runs in our origin: nosniff, and a sandbox for anything a browser
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
  // RFC 9110 §13.1.5: a Range under an If-Range that does not match is ignored (the whole file).
  const ranged = ifRangeHolds(request.headers['if-range'], etag) ? request.headers.range : undefined;
  let range;
  try {
    range = parseByteRange(ranged, size);
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

/**
 * Whether a Range may be honoured under this If-Range: none given, or the file's ETag by strong
 * comparison (a weak tag never matches). A date never matches: no Last-Modified is sent, so the
 * client's date cannot be a validator of this representation.
 */
function ifRangeHolds(ifRange: string | string[] | undefined, etag: string): boolean {
  return ifRange === undefined || (typeof ifRange === 'string' && ifRange.trim() === etag);
}
