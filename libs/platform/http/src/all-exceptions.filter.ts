import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorResponder } from './error-responder.js';

/** Catches everything Nest's pipeline throws and hands it to the shared ErrorResponder. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly responder: ErrorResponder) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // Nest's own not-found handler throws NotFoundException for unmatched routes. A request no
    // route matched answers 404/405 whatever else failed first: its body is parsed before the
    // not-found handler runs, so a form or multipart body would otherwise answer 415.
    const unmatched = !request.routeOptions?.url;
    this.responder.send(request, reply, unmatched ? this.responder.routeMiss(request) : exception);
  }
}
