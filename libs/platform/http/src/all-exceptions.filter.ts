import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorHeaders } from './error-headers.js';
import type { ErrorResponder } from './error-responder.js';

/**
 * Catches everything Nest's pipeline throws and hands it to the shared ErrorResponder, with the
 * headers a component adds to errors its route did not get to (ErrorHeaders), if any.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly responder: ErrorResponder,
    private readonly errorHeaders: () => ErrorHeaders | undefined = () => undefined,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // Nest's own not-found handler throws NotFoundException for unmatched routes. A request no
    // route matched answers 404/405 whatever else failed first: its body is parsed before the
    // not-found handler runs, so a form or multipart body would otherwise answer 415.
    const unmatched = !request.routeOptions?.url;
    const error = unmatched ? this.responder.routeMiss(request) : exception;
    const extra = reply.sent ? undefined : this.errorHeaders()?.headersFor(request, reply.getHeaders());
    if (!extra) return this.responder.send(request, reply, error);
    void extra
      .then(
        (headers) => void reply.headers(headers),
        () => undefined, // no headers then: the error itself still goes out
      )
      .finally(() => this.responder.send(request, reply, error));
  }
}
