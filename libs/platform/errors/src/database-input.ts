import { AppError } from './app-error.js';
import { ErrorCode, notFound } from './error-codes.js';

/**
 * SQLSTATEs that mean "the input holds text PostgreSQL cannot store": U+0000 in text (22021,
 * character_not_in_repertoire) or in jsonb (22P05, untranslatable_character). The edge refuses
 * such text before it reaches a handler; this covers callers that reach a component another
 * way (MCP tools, the Leaf, NATS), so they get a 400 and never a 500.
 */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * The SQLSTATE of a database error, whether `pg` raised it or Prisma's driver adapter wrapped
 * it; a Prisma error code (P2025, P2003) when Prisma raised the error itself.
 */
export function sqlStateOf(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = err;
  // pg: err.code; Prisma's adapter: err.cause.originalCode or err.meta.driverAdapterError.cause.originalCode.
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as {
      code?: unknown;
      originalCode?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    for (const candidate of [e.originalCode, e.code])
      if (typeof candidate === 'string' && /^[0-9A-Z]{5}$/.test(candidate)) return candidate;
    current = e.cause ?? e.meta?.driverAdapterError;
  }
  return undefined;
}

/** A 400 for a database refusal of the input's text, or undefined when the error is anything else. */
export function unstorableInputError(err: unknown): AppError | undefined {
  const state = sqlStateOf(err);
  if (!state || !UNSTORABLE_TEXT.has(state)) return undefined;
  return new AppError({
    status: 400,
    code: ErrorCode.BAD_REQUEST,
    message: 'A text value contains a character that cannot be stored (such as U+0000)',
  });
}

/** A foreign key refused the write: SQLSTATE 23503 from a `pg` statement, or Prisma's P2003. */
export function isForeignKeyViolation(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state === '23503' || state === 'P2003';
}

/**
 * What a write that lost a race with a delete answers, when its handler did not say better:
 * the row it updates was deleted after the handler read it (Prisma's P2025: 404, as the same
 * request a moment later would answer), or a row it refers to was (a foreign key: 409, read
 * again and retry). Undefined for any other error.
 */
export function concurrentDeleteError(err: unknown): AppError | undefined {
  const state = sqlStateOf(err);
  if (state === 'P2025') return notFound();
  if (isForeignKeyViolation(err))
    return new AppError({
      status: 409,
      code: ErrorCode.CONFLICT,
      message: 'Something this request refers to was removed meanwhile; read it again before retrying',
    });
  return undefined;
}
