import { AppError, ErrorCode } from '@kw/platform-errors';

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/**
 * The one range of a `Range: bytes=...` header (RFC 9110 14.1.2), clipped to the file. Null
 * means "send the whole file": no header, another unit, several ranges (allowed: a server may
 * ignore Range) or a header that does not parse. A range starting past the end is 416, and so
 * is every range of an empty file.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [first, last] = [match[1], match[2]];
  if (first === '') {
    // A suffix: the last N bytes. An empty file has no last byte to send (its range would be
    // 0--1), so it is as unsatisfiable as `bytes=0-` there.
    const n = Number(last);
    if (n === 0 || size === 0) throw unsatisfiable(size);
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) throw unsatisfiable(size);
  if (end < start) return null;
  return { start, end };
}

function unsatisfiable(size: number): AppError {
  return new AppError({
    status: 416,
    code: ErrorCode.RANGE_NOT_SATISFIABLE,
    message: `The range is outside the file (${size} bytes)`,
    details: { size },
  });
}
