import { AppError, ErrorCode } from '@kw/platform-errors';
import type { Headers } from './transport.js';

/** NATS's default max_payload (headers included); the in-process transport enforces it too (bigger requests and replies go in chunks). */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Bytes of a message as NATS counts them: payload plus the `NATS/1.0` header block. */
export function messageSize(data: Uint8Array, headers: Headers | undefined): number {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return data.byteLength;
  const headerBytes = entries.reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v) + 4, 12);
  return data.byteLength + headerBytes;
}

export function payloadTooLarge(subject: string, maxPayload: number): AppError {
  return new AppError({
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: `Message on ${subject} exceeds the ${maxPayload} byte limit`,
    details: { maxPayload },
  });
}
