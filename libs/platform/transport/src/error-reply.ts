import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, unstorableInputError, type AppErrorInit } from '@kw/platform-errors';
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
  const errorId = randomUUID();
  logger.error({ ...fields, errorId, err }, 'request handler failed');
  return new AppError({ status: 500, code: ErrorCode.INTERNAL_ERROR, message: 'Internal error', details: { errorId } });
}

export function errorReply(error: AppError): Reply {
  return { data: new Uint8Array(0), headers: { [ERROR_HEADER]: JSON.stringify(error.toJSON()) } };
}

/** The AppError a reply carries, if it is an error reply. */
export function errorOf(headers: Headers): AppError | undefined {
  const raw = headers[ERROR_HEADER];
  if (raw === undefined) return undefined;
  try {
    const init = JSON.parse(raw) as AppErrorInit;
    if (typeof init.status === 'number' && typeof init.code === 'string' && typeof init.message === 'string') return AppError.fromJSON(init);
  } catch {
    // fall through: a reply we cannot read is the remote side's failure
  }
  return new AppError({ status: 500, code: ErrorCode.INTERNAL_ERROR, message: 'Internal error' });
}
