import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { buildErrorResponse } from './error-response.js';
import { errorPageFor } from './error-pages.js';
import type { RouteTable } from './route-table.js';

/**
 * Sends the error body for anything thrown while handling a request, from Nest's pipeline
 * and from Fastify's own stages alike, so every error has one shape and one log line.
 */
export class ErrorResponder {
  constructor(
    private readonly logger: Logger,
    private readonly routes: RouteTable,
  ) {}

  /**
   * What to answer when no route matched: 405 if the path exists with other methods. Should the
   * table ever allow the very method the router refused, the path is not served: 404, never a
   * 405 that lists the method it refuses.
   */
  routeMiss(request: FastifyRequest): AppError {
    const allow = this.routes.allowedMethods(request.url);
    if (allow.length > 0 && !allow.includes(request.method)) return methodNotAllowed(request.method, allow);
    return new AppError({
      status: 404,
      code: ErrorCode.NOT_FOUND,
      message: `No route ${request.method} ${request.url.split('?')[0]}`,
    });
  }

  /**
   * 405 for a request the router gave to a parametric route although its path is a fixed route
   * of other methods (`GET /api/hosted-zones/enroll` reached `GET /api/hosted-zones/:id`, which
   * answered 404 "Hosted zone not found"); undefined for every other request.
   */
  shadowedRoute(request: FastifyRequest): AppError | undefined {
    if (!request.routeOptions?.url?.includes(':')) return undefined;
    const allow = this.routes.shadowedFixedRoute(request.method, request.url);
    return allow ? methodNotAllowed(request.method, allow) : undefined;
  }

  send(request: FastifyRequest, reply: FastifyReply, err: unknown): void {
    // A page a browser loaded (a consent page): the error is that page, whatever refused it.
    const page = reply.sent ? undefined : errorPageFor(request);
    if (page) {
      void page.send(request, reply, err, this.logger).catch((failure: unknown) => {
        this.logger.error({ err: failure, url: request.url.split('?')[0] }, 'error page failed');
      });
      return;
    }
    const response = buildErrorResponse(err, request.url);
    if (response.errorId) {
      this.logger.error(
        { err: response.cause, errorId: response.errorId, method: request.method, url: request.url },
        'unexpected failure',
      );
    } else if (response.status >= 500) {
      this.logger.warn({ status: response.status, code: response.code, url: request.url }, 'request failed');
    }
    if (reply.sent) return;
    void reply
      .status(response.status)
      .headers(response.headers)
      .type('application/json; charset=utf-8')
      .send(response.body);
  }
}

function methodNotAllowed(method: string, allow: string[]): AppError {
  return new AppError({
    status: 405,
    code: ErrorCode.METHOD_NOT_ALLOWED,
    message: `${method} is not allowed on this path; allowed: ${allow.join(', ')}`,
    details: { allow },
  });
}
