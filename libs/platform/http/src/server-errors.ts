import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { acceptOrCreateRequestId } from '@kw/platform-context';
import { buildErrorResponse } from './error-response.js';
import { errorPageFor } from './error-pages.js';
import { answerReceiveTimeout } from './receive-timeouts.js';

const REQUEST_ID_HEADER = 'x-request-id';

/** Longest path parameter the router accepts (Fastify's maxParamLength); ids are 36 characters. */
export const MAX_PATH_PARAMETER_LENGTH = 512;

/**
 * Errors Fastify raises before a route runs (a path that does not decode, a path parameter
 * over the limit): Nest's filters never see them, so they are answered here, in the one shape
 * and with a request id. The URL is never echoed back.
 */
function frameworkError(logger: Logger) {
  return (error: { code?: string }, request: FastifyRequest, reply: FastifyReply): void => {
    const appError =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError({
            status: 414,
            code: ErrorCode.URI_TOO_LONG,
            message: `A path segment is longer than ${MAX_PATH_PARAMETER_LENGTH} characters`,
          })
        : new AppError({
            status: 400,
            code: ErrorCode.BAD_REQUEST,
            message: 'The path is not a valid URL (it does not decode as UTF-8)',
          });
    const page = errorPageFor(request);
    if (page) {
      logger.debug({ code: error.code, status: appError.status }, 'request refused by the router');
      void reply.header(REQUEST_ID_HEADER, acceptOrCreateRequestId(request.headers[REQUEST_ID_HEADER]));
      void page.send(request, reply, appError, logger).catch((failure: unknown) => {
        logger.error({ err: failure }, 'error page failed');
      });
      return;
    }
    const response = buildErrorResponse(appError, request.url);
    logger.debug({ code: error.code, status: response.status }, 'request refused by the router');
    void reply
      .status(response.status)
      .header(REQUEST_ID_HEADER, acceptOrCreateRequestId(request.headers[REQUEST_ID_HEADER]))
      .type('application/json; charset=utf-8')
      .send(response.body);
  };
}

/** The path of the request line in what Node had read, to choose the error shape (/api/v1 or not). */
function pathOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '/';
  const line = rawPacket.subarray(0, Math.min(rawPacket.length, 256)).toString('latin1').split('\r\n', 1)[0];
  return line.split(' ')[1] ?? '/';
}

function clientAppError(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new AppError({
      status: 431,
      code: ErrorCode.HEADERS_TOO_LARGE,
      message: 'The request line and headers are larger than 16 KiB',
    });
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new AppError({
      status: 408,
      code: ErrorCode.REQUEST_TIMEOUT,
      message: 'The request was not received in time',
    });
  }
  return new AppError({
    status: 400,
    code: ErrorCode.BAD_REQUEST,
    message: 'The request is not valid HTTP (malformed request line or header)',
  });
}

/**
 * Requests Node's HTTP parser refuses (an over-long request line or header block, a bare LF or
 * NUL in a header) never become Fastify requests: this writes the answer on the socket itself,
 * in the documented shape with a fresh request id, then closes the connection.
 */
function clientError(logger: Logger) {
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // A request whose body was still arriving is answered by its route's reply, in its shape.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && answerReceiveTimeout(socket)) return;
    const response = buildErrorResponse(clientAppError(error.code), pathOf(error.rawPacket));
    const body = JSON.stringify(response.body);
    const requestId = randomUUID();
    logger.debug({ code: error.code, status: response.status, requestId }, 'malformed request refused');
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}\r\n` +
          `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
          `${REQUEST_ID_HEADER}: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

/** The Fastify server options of the HTTP edge, with Node's own server options (`http`). */
export type EdgeServerOptions = Pick<
  FastifyServerOptions,
  'frameworkErrors' | 'clientErrorHandler' | 'routerOptions'
> & {
  http: { requireHostHeader: boolean };
};

/** Fastify server options that keep errors raised outside Nest's pipeline in the error model. */
export function edgeServerOptions(logger: Logger): EdgeServerOptions {
  return {
    frameworkErrors: frameworkError(logger),
    clientErrorHandler: clientError(logger),
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // Node answers an HTTP/1.1 request without Host with an empty 400 no hook sees; the HTTP
    // edge refuses it instead, in the error model (missing-host.ts).
    http: { requireHostHeader: false },
  };
}
