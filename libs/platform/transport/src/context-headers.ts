import { randomUUID } from 'node:crypto';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { AuthContextSchema } from '@kw/contracts';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { acceptOrCreateRequestId, type RequestContext } from '@kw/platform-context';
import { deadlineOf } from './deadline.js';
import type { Headers } from './transport.js';

/**
 * The request context crosses a hop in headers, never in the payload: contracts describe
 * the domain, not who is asking, and every message carries the same two headers (plus the
 * W3C trace context, added by ServiceClient while tracing is on: see @kw/platform-tracing).
 */
export const REQUEST_ID_HEADER = 'kw-request-id';
/** Base64 of the kw.platform.v1.AuthContext protobuf. */
export const AUTH_HEADER = 'kw-auth';

/** Headers for an outgoing message; a call made outside any request still gets a request id for the logs. */
export function contextToHeaders(ctx: RequestContext | undefined): Headers {
  const headers: Headers = { [REQUEST_ID_HEADER]: ctx?.requestId ?? randomUUID() };
  if (ctx?.auth) headers[AUTH_HEADER] = Buffer.from(toBinary(AuthContextSchema, ctx.auth)).toString('base64');
  return headers;
}

/** The context of an incoming message; a malformed auth header is refused rather than dropped. */
export function contextFromHeaders(headers: Headers): RequestContext {
  const ctx: RequestContext = { requestId: acceptOrCreateRequestId(headers[REQUEST_ID_HEADER]) };
  const deadline = deadlineOf(headers);
  if (deadline !== undefined) ctx.deadline = deadline;
  const auth = headers[AUTH_HEADER];
  if (auth) {
    try {
      ctx.auth = fromBinary(AuthContextSchema, Buffer.from(auth, 'base64'));
    } catch {
      throw new AppError({ status: 400, code: ErrorCode.BAD_REQUEST, message: `Malformed ${AUTH_HEADER} header` });
    }
  }
  return ctx;
}
