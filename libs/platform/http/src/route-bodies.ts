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
  /**
   * application/x-www-form-urlencoded routes (OAuth 2.0 endpoints): the body becomes an object
   * of strings; a parameter sent twice is refused (RFC 6749 §3.2). Elsewhere the type is 415.
   */
  formUrlEncoded?: RouteRef[];
  /** Routes whose body is one compact JWT of a media type of their own (SET delivery): the text. */
  jwtBodies?: Array<RouteRef & { contentType: string }>;
  /**
   * application/json routes whose handler needs the exact text it was sent (a provider's
   * signature covers the bytes): parsed as everywhere else, and the text kept for
   * `rawJsonBody(request)`. Elsewhere no copy is kept.
   */
  rawJson?: RouteRef[];
  /**
   * Routes whose body is one binary document of a media type of their own (a workspace archive,
   * application/zip) that the handler streams from the raw request itself: the edge parses
   * nothing and keeps no copy. Elsewhere the type is 415.
   */
  streamedBinary?: Array<RouteRef & { contentType: string }>;
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
  const jwtRoutes = new Map<string, Set<string>>();
  for (const r of bodies.jwtBodies ?? []) {
    const type = r.contentType.toLowerCase();
    if (!jwtRoutes.has(type)) jwtRoutes.set(type, new Set());
    jwtRoutes.get(type)!.add(key(r.method, r.url));
  }
  for (const [type, routes] of jwtRoutes) {
    fastify.addContentTypeParser(type, { parseAs: 'string' }, (request, body, done) => {
      if (routes.has(key(request.method, request.routeOptions.url ?? ''))) done(null, (body as string).trim());
      else done(unsupportedMediaType(), undefined);
    });
  }
  const binaryRoutes = new Map<string, Set<string>>();
  for (const r of bodies.streamedBinary ?? []) {
    const type = r.contentType.toLowerCase();
    if (!binaryRoutes.has(type)) binaryRoutes.set(type, new Set());
    binaryRoutes.get(type)!.add(key(r.method, r.url));
  }
  for (const [type, routes] of binaryRoutes) {
    fastify.addContentTypeParser(type, (request, _payload, done) => {
      if (routes.has(key(request.method, request.routeOptions.url ?? ''))) done(null, undefined);
      else done(unsupportedMediaType(), undefined);
    });
  }
  fastify.addContentTypeParser('multipart/form-data', (request, _payload, done) => {
    if (streamed.has(key(request.method, request.routeOptions.url ?? ''))) {
      done(null, undefined);
      return;
    }
    done(unsupportedMediaType(), undefined);
  });
}

type FormParser = (
  request: { method: string; routeOptions: { url?: string } },
  body: Buffer,
  done: (err: Error | null, body?: unknown) => void,
) => void;

/**
 * The application/x-www-form-urlencoded parser: declared routes get an object of strings, and
 * every other route 415. Registered through Nest's useBodyParser, which otherwise installs
 * its own parser for the type on every route.
 */
export function formUrlEncodedParser(bodies: RouteBodies): FormParser {
  const forms = new Set((bodies.formUrlEncoded ?? []).map((r) => key(r.method, r.url)));
  return (request, body, done) => {
    if (!forms.has(key(request.method, request.routeOptions.url ?? ''))) {
      done(unsupportedMediaType());
      return;
    }
    const params: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
      if (Object.hasOwn(params, name)) {
        done(Object.assign(new Error(`The parameter ${name} is sent more than once`), { statusCode: 400 }));
        return;
      }
      params[name] = value;
    }
    done(null, params);
  };
}

const rawJsonTexts = new WeakMap<object, string>();

/** The exact text of a JSON body on a route declared `rawJson`; undefined on any other route or body. */
export function rawJsonBody(request: object): string | undefined {
  return rawJsonTexts.get(request);
}

type JsonParser = (
  request: { method: string; routeOptions: { url?: string } },
  body: Buffer,
  done: (err: Error | null, body?: unknown) => void,
) => void;

/**
 * The application/json parser: Fastify's own, as Nest installs it by default (same body limit,
 * prototype-poisoning rules and errors), which also keeps the text of `rawJson` routes.
 * Registered through Nest's useBodyParser, which then installs no parser of its own for the type.
 */
export function jsonParser(fastify: FastifyInstance, bodies: RouteBodies): JsonParser {
  const raw = new Set((bodies.rawJson ?? []).map((r) => key(r.method, r.url)));
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig as {
    onProtoPoisoning?: 'error' | 'remove' | 'ignore';
    onConstructorPoisoning?: 'error' | 'remove' | 'ignore';
  };
  const parse = fastify.getDefaultJsonParser(onProtoPoisoning || 'error', onConstructorPoisoning || 'error');
  return (request, body, done) => {
    if (raw.has(key(request.method, request.routeOptions.url ?? ''))) rawJsonTexts.set(request, body.toString('utf8'));
    // A Buffer, as Nest hands it over by default (Fastify's parser reads both; typed for strings).
    parse(request as never, body as never, done as never);
  };
}

/** The same refusal Fastify gives any content type without a parser (mapped to 415). */
function unsupportedMediaType(): Error {
  return Object.assign(new Error('Unsupported Content-Type'), {
    statusCode: 415,
    code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  });
}
