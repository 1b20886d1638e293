import type { FastifyRequest } from 'fastify';

/**
 * Headers an error answer needs that its route would have set had it run: an embed route's CORS
 * headers, which its guard adds once the key admits the page's origin. An error raised before
 * the guard (a body that is not JSON, too large, of another type) would otherwise reach the
 * page's script as an opaque network failure instead of the error. Provided by a component
 * under ERROR_HEADERS; `headersFor` answers undefined at once when it has nothing to add, so
 * every other error is sent as before, synchronously.
 */
export interface ErrorHeaders {
  headersFor(
    request: FastifyRequest,
    sentHeaders: Record<string, unknown>,
  ): Promise<Record<string, string>> | undefined;
}

export const ERROR_HEADERS = Symbol('ERROR_HEADERS');
