import type { FastifyRequest } from 'fastify';
import { badRequest, type AppError } from '@kw/platform-errors';

/**
 * A request that sends the Authorization header more than once is ambiguous: Node keeps only
 * the first, so a proxy and the platform could each act on a different credential. The HTTP
 * edge refuses it (400) on every route, before any credential is read.
 */
export function ambiguousAuthorization(request: FastifyRequest): AppError | undefined {
  const raw = request.raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization' && ++seen > 1) {
      return badRequest('The Authorization header was sent more than once; send exactly one credential');
    }
  }
  return undefined;
}
