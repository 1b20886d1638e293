import { randomUUID } from 'node:crypto';
import {
  AppError,
  ErrorCode,
  concurrentDeleteError,
  unstorableInputError,
  type AppErrorInit,
} from '@kw/platform-errors';
import type { Logger } from './logger.js';
import type { Headers, Reply } from './transport.js';

/**
 * A failed request is answered with an empty payload and this header holding the AppError's
 * JSON, so errors cross a hop without every contract declaring an error message.
 */
export const ERROR_HEADER = 'kw-error';

/**
 * What the caller may learn of a failure: an AppError as is; anything else only as 500
 * with an error id, logged here with its message and stack so the id leads to the cause.
 */
export function exposableError(err: unknown, logger: Logger, fields: Record<string, unknown>): AppError {
  if (AppError.isAppError(err)) return err;
  const refusedInput = unstorableInputError(err);
  if (refusedInput) return refusedInput;
  // A race with a delete is the caller's timing, not a fault: logged so a pattern shows.
  const raced = concurrentDeleteError(err);
  if (raced) {
    logger.info({ ...fields, err }, 'request lost a race with a delete');
    return raced;
  }
  const errorId = randomUUID();
  logger.error({ ...fields, errorId, err }, 'request handler failed');
  return new AppError({ status: 500, code: ErrorCode.INTERNAL_ERROR, message: 'Internal error', details: { errorId } });
}

/**
 * Bytes an error may take in its header. A message that echoes its input (a 1 MB field) would
 * otherwise make the reply too big to send, and the caller would get a 500 for a 400.
 */
const MAX_ERROR_BYTES = 16 * 1024;
const MAX_ERROR_MESSAGE = 1_000;

export function errorReply(error: AppError): Reply {
  let json = JSON.stringify(error.toJSON());
  if (json.length > MAX_ERROR_BYTES) {
    const init = error.toJSON();
    const message =
      init.message.length > MAX_ERROR_MESSAGE ? `${init.message.slice(0, MAX_ERROR_MESSAGE)}…` : init.message;
    json = JSON.stringify({ ...init, message });
    // Details too big to carry are dropped: status, code and message still say what went wrong.
    if (json.length > MAX_ERROR_BYTES)
      json = JSON.stringify({ ...init, message, details: undefined, param: init.param?.slice(0, 200) });
  }
  return { data: new Uint8Array(0), headers: { [ERROR_HEADER]: json } };
}

/** The AppError a reply carries, if it is an error reply. */
export function errorOf(headers: Headers): AppError | undefined {
  const raw = headers[ERROR_HEADER];
  if (raw === undefined) return undefined;
  try {
    const init = JSON.parse(raw) as AppErrorInit;
    if (typeof init.status === 'number' && typeof init.code === 'string' && typeof init.message === 'string')
      return AppError.fromJSON(init);
  } catch {
    // fall through: a reply we cannot read is the remote side's failure
  }
  return new AppError({ status: 500, code: ErrorCode.INTERNAL_ERROR, message: 'Internal error' });
}
