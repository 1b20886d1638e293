import type { FastifyRequest } from 'fastify';
import { badRequest, type AppError } from '@kw/platform-errors';

/**
 * An HTTP/1.1 request must carry a Host header (RFC 9112 section 3.2). Node's server would
 * refuse one without it with an empty 400 of its own (`requireHostHeader`), outside the error
 * model; the platform turns that off (edgeServerOptions) and refuses here instead, in the
 * documented shape with a request id. HTTP/1.0 requests need no Host, as in Node.
 */
export function missingHost(request: FastifyRequest): AppError | undefined {
  const raw = request.raw;
  if (raw.httpVersionMajor !== 1 || raw.httpVersionMinor < 1 || raw.headers.host !== undefined) return undefined;
  return badRequest('An HTTP/1.1 request must send a Host header');
}
