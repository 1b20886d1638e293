import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ErrorHeaders } from '@kw/platform-http';
import { EMBED_SESSION_HEADER, EmbedRequests, reachedEmbedGuard } from './embed-key.guard.js';

const EMBED_ROUTES = '/api/v2/embed/';

/**
 * CORS headers for an embed route's error raised before its guard ran (400 INVALID_JSON, 413,
 * 415, the input guard's refusals): the key and the page's origin are admitted as for a
 * preflight, and an admitted cross-origin page gets the headers the guard would have given it,
 * so its script reads the error instead of an opaque failure. A refused key or origin adds
 * nothing: the error goes out as it is.
 */
@Injectable()
export class EmbedErrorCors implements ErrorHeaders {
  constructor(private readonly requests: EmbedRequests) {}

  headersFor(
    request: FastifyRequest,
    sentHeaders: Record<string, unknown>,
  ): Promise<Record<string, string>> | undefined {
    if (!request.url.startsWith(EMBED_ROUTES) || !request.headers.origin) return undefined;
    // The guard admitted it (its headers are set) or refused it (no headers are due).
    if (reachedEmbedGuard(request) || sentHeaders['access-control-allow-origin'] !== undefined) return undefined;
    return this.requests.admit(request, { preflight: true }).then(({ origin, crossOrigin }): Record<string, string> =>
      crossOrigin
        ? {
            'access-control-allow-origin': origin,
            vary: 'Origin',
            'access-control-expose-headers': EMBED_SESSION_HEADER,
          }
        : {},
    );
  }
}
