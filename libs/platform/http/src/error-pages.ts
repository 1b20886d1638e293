import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/**
 * A route a person's browser loads (a consent or approval page): its errors are a page too,
 * never a JSON body, including those the edge raises before the route runs (a rate limit, a NUL
 * character, a path segment over the limit). Components register theirs; the shared error
 * responders ask here first.
 */
export interface ErrorPage {
  /** Whether a failed request (method, path without its query) is this page's. */
  matches(method: string, path: string): boolean;
  /** Answers the error as the page (its status and Retry-After), logging as the responder does. */
  send(request: FastifyRequest, reply: FastifyReply, err: unknown, logger: Logger): Promise<void>;
}

const pages = new Set<ErrorPage>();

/** Registers a page route's error page (the same object again is a no-op). */
export function registerErrorPage(page: ErrorPage): void {
  pages.add(page);
}

/** The error page of the request's route, if it is a page. */
export function errorPageFor(request: Pick<FastifyRequest, 'method' | 'url'>): ErrorPage | undefined {
  const path = request.url.split('?')[0];
  for (const page of pages) if (page.matches(request.method, path)) return page;
  return undefined;
}
