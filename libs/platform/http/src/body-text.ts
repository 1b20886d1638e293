import { AppError, ErrorCode } from '@kw/platform-errors';

/**
 * How the edge turns a text body's bytes into text: UTF-8 only, strictly. Node's own decoding
 * replaces every invalid byte sequence with U+FFFD, so a body with broken bytes would be stored
 * as something else than was sent; it is refused instead (docs/errors.md, "Input the platform
 * refuses everywhere"). The BOM is kept as text, as before: JSON must not start with one.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, or undefined when its bytes are not UTF-8. */
export function decodeUtf8(bytes: Buffer | string): string | undefined {
  if (typeof bytes === 'string') return bytes;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The `charset` parameter of a Content-Type header, lower-cased, or undefined when none is declared. */
export function declaredCharset(contentType: string | string[] | undefined): string | undefined {
  const header = Array.isArray(contentType) ? contentType[0] : contentType;
  for (const parameter of (header ?? '').split(';').slice(1)) {
    const [name, ...value] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    return value
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

const UTF8_NAMES = new Set(['utf-8', 'utf8']);

/**
 * 415 for a body that declares a charset other than UTF-8: its bytes would be read as UTF-8
 * anyway (RFC 8259 allows no other for JSON), so non-ASCII text would change on the way in.
 */
export function checkUtf8Charset(contentType: string | string[] | undefined): AppError | undefined {
  const charset = declaredCharset(contentType);
  if (charset === undefined || UTF8_NAMES.has(charset)) return undefined;
  return new AppError({
    status: 415,
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message: 'Unsupported Content-Type: the body must be UTF-8 (send charset=utf-8 or no charset)',
  });
}

/** 400 for a body whose bytes are not UTF-8: `INVALID_JSON` for JSON, `BAD_REQUEST` for other text. */
export function notUtf8(kind: 'JSON' | 'form' | 'text'): AppError {
  return new AppError({
    status: 400,
    code: kind === 'JSON' ? ErrorCode.INVALID_JSON : ErrorCode.BAD_REQUEST,
    message: `The request body is not valid UTF-8${kind === 'form' ? ' (percent-encoded bytes included)' : ''}`,
  });
}
