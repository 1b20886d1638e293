import type { FastifyRequest } from 'fastify';
import { badRequest } from '@kw/platform-errors';

/**
 * The Authorization header, refusing a request that sends it more than once: Node keeps only
 * the first, so a proxy and the platform could each act on a different credential.
 */
export function singleAuthorization(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization' && ++seen > 1) {
      throw badRequest('The Authorization header was sent more than once; send exactly one credential');
    }
  }
  return request.headers.authorization;
}
