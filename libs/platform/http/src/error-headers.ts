import type { FastifyRequest } from 'fastify';

/**
 * Headers an error answer needs that its route would have set had it run: a route's CORS
 * headers, which it adds once it admits the page's origin (the embed chat's guard, the MCP
 * endpoint). An error raised before that (a body that is not JSON, too large, of another type,
 * an anonymous caller's 429) would otherwise reach the page's script as an opaque network
 * failure instead of the error. Each component that needs it provides one under ERROR_HEADERS
 * in its own module; the HTTP edge asks every one of them and sends the headers they add.
 * `headersFor` answers undefined at once when it has nothing to add (a request for another
 * component's routes, a foreign origin), so every other error is sent as before, synchronously.
 */
export interface ErrorHeaders {
  headersFor(
    request: FastifyRequest,
    sentHeaders: Record<string, unknown>,
  ): Promise<Record<string, string>> | undefined;
}

/** Provided by each component that adds headers to errors (several may: all are asked). */
export const ERROR_HEADERS = Symbol('ERROR_HEADERS');
