import type { FastifyInstance } from 'fastify';

/** A route named the way Fastify registers it (`/api/files/upload`, `/api/files/:id`). */
export interface RouteRef {
  method: string;
  url: string;
}

/** Routes whose bodies differ from the rest of the API, declared by the component that owns them. */
export interface RouteBodies {
  /**
   * multipart/form-data routes whose handler reads the raw request stream itself (uploads
   * streamed to storage): the edge parses nothing and keeps no copy. Elsewhere multipart is 415.
   */
  streamedMultipart?: RouteRef[];
  /** Routes with their own JSON body limit instead of BODY_LIMIT_BYTES. */
  bodyLimits?: Array<RouteRef & { bytes: number }>;
}

const key = (method: string, url: string) => `${method.toUpperCase()} ${url}`;

/** Must run before the routes are registered (app.init()): the limits are set as each route is added. */
export function installRouteBodies(fastify: FastifyInstance, bodies: RouteBodies): void {
  const limits = new Map((bodies.bodyLimits ?? []).map((r) => [key(r.method, r.url), r.bytes]));
  const streamed = new Set((bodies.streamedMultipart ?? []).map((r) => key(r.method, r.url)));
  if (limits.size > 0) {
    fastify.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const bytes = methods.map((m) => limits.get(key(m, route.url))).find((b) => b !== undefined);
      if (bytes !== undefined) route.bodyLimit = bytes;
    });
  }
  fastify.addContentTypeParser('multipart/form-data', (request, _payload, done) => {
    if (streamed.has(key(request.method, request.routeOptions.url ?? ''))) {
      done(null, undefined);
      return;
    }
    // The same refusal Fastify gives any content type without a parser (mapped to 415).
    const err = Object.assign(new Error('Unsupported Content-Type'), {
      statusCode: 415,
      code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
    });
    done(err, undefined);
  });
}
