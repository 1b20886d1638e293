import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorHeaders } from './error-headers.js';
import type { ErrorResponder } from './error-responder.js';

/**
 * Catches everything Nest's pipeline throws and hands it to the shared ErrorResponder, with the
 * headers components add to errors their route did not get to (ErrorHeaders), if any.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly responder: ErrorResponder,
    private readonly errorHeaders: () => readonly ErrorHeaders[] = () => [],
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
    const extra = reply.sent ? [] : this.headersToAdd(request, reply.getHeaders());
    if (extra.length === 0) return this.responder.send(request, reply, error);
    void Promise.all(
      extra.map((pending) =>
        pending.then(
          (headers) => void reply.headers(headers),
          () => undefined, // none of these then: the error itself still goes out
        ),
      ),
    ).finally(() => this.responder.send(request, reply, error));
  }

  /** What each provider will add: only those with something to say (none, usually). */
  private headersToAdd(
    request: FastifyRequest,
    sentHeaders: Record<string, unknown>,
  ): Promise<Record<string, string>>[] {
    const pending: Promise<Record<string, string>>[] = [];
    for (const provider of this.errorHeaders()) {
      const headers = provider.headersFor(request, sentHeaders);
      if (headers) pending.push(headers);
    }
    return pending;
  }
}
