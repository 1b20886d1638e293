import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '@kw/platform-errors';

/**
 * Aborts when the client goes away before the answer was fully sent, so the upstream request
 * (and its cost) stops with it. The response's `close` fires for both a finished answer and a
 * dropped connection; only the second leaves it unfinished.
 */
export function clientAbortSignal(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  request.raw.once('aborted', onClose);
  return controller.signal;
}

/**
 * What a call the client abandoned fails with: an expected outcome, not a server failure (no
 * error log, no stack). Nobody reads the answer; 499 is nginx's "client closed request".
 */
export function unlessClientGone(signal: AbortSignal): (err: unknown) => never {
  return (err) => {
    if (!signal.aborted) throw err;
    throw new AppError({
      status: 499,
      code: ErrorCode.CLIENT_CLOSED_REQUEST,
      message: 'The client closed the request before the answer',
    });
  };
}
