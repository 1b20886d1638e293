import { AppError, ErrorCode } from '@kw/platform-errors';

/** Not an ErrorCode of the platform lib: only the gateway's session check produces it. */
export const CSRF_FAILED = 'CSRF_FAILED';

export const WWW_AUTHENTICATE = 'Bearer realm="kw"';

export const unauthenticated = (message = 'Authentication required'): AppError =>
  new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message });

export const csrfFailed = (): AppError =>
  new AppError({
    status: 403,
    code: CSRF_FAILED,
    message: 'A state-changing request signed in by session needs the x-csrf-token header equal to the kw_csrf cookie',
  });

export const sessionRequired = (): AppError =>
  new AppError({
    status: 403,
    code: ErrorCode.FORBIDDEN,
    message: 'This route accepts only a signed-in browser session, not an access token',
  });
