import { AppError, ErrorCode } from '@kw/platform-errors';

/** One message for every refused credential: the answer never tells which check failed. */
export const invalidCredential = (): AppError =>
  new AppError({
    status: 401,
    code: ErrorCode.UNAUTHENTICATED,
    message: 'The credential is invalid, expired or revoked',
  });
