import type { FastifyInstance, preParsingHookHandler } from 'fastify';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { checkUtf8Charset, decodeUtf8, notUtf8 } from './body-text.js';

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
   * These routes read forms only: a JSON body there is 415 too.
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
  streamedBinary?: Array<RouteRef & { contentType: string; maxBytes?: number }>;
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
    fastify.addContentTypeParser(type, { parseAs: 'buffer' }, (request, body, done) => {
      if (!routes.has(key(request.method, request.routeOptions.url ?? '')))
        return done(unsupportedMediaType(), undefined);
      const text = decodeUtf8(body as Buffer);
      if (text === undefined) done(notUtf8('text'), undefined);
      else done(null, text.trim());
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
  // A binary route sent another type that has a parser (a zip as application/json, say) must not
  // reach that parser: it would refuse the bytes as that type (400 INVALID_JSON for a zip that is
  // not UTF-8) before the caller is even authenticated, where the route's answer is 415 after its
  // authorization. The body is left unread as the route's own type, and the route reads the type
  // the client declared with `declaredContentType`.
  const binaryTypes = new Map((bodies.streamedBinary ?? []).map((r) => [key(r.method, r.url), r] as const));
  if (binaryTypes.size > 0) {
    fastify.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const binary = methods.map((m) => binaryTypes.get(key(m, route.url))).find((t) => t !== undefined);
      if (binary === undefined) return;
      const type = binary.contentType.toLowerCase();
      const { maxBytes } = binary;
      const leaveOtherTypesUnread: preParsingHookHandler = (request, reply, payload, done) => {
        // A body declared larger than the route takes is refused before a byte of it is read, and
        // before the route runs (nothing opened for it), on a connection then closed: the client
        // would otherwise send up to the cap first (docs/errors.md, 413).
        if (maxBytes !== undefined && Number(request.headers['content-length'] ?? 0) > maxBytes) {
          void reply.header('connection', 'close');
          return done(
            new AppError({
              status: 413,
              code: ErrorCode.PAYLOAD_TOO_LARGE,
              message: `The request body is larger than ${maxBytes} bytes, the most this route takes`,
            }),
          );
        }
        const sent = request.headers['content-type'];
        if (sent !== undefined && mediaTypeOf(sent) !== type) {
          declaredTypes.set(request.raw, sent);
          request.headers['content-type'] = type;
        }
        done(null, payload);
      };
      const existing = route.preParsing === undefined ? [] : [route.preParsing].flat();
      route.preParsing = [...existing, leaveOtherTypesUnread];
    });
  }
  fastify.addContentTypeParser('multipart/form-data', (request, _payload, done) => {
    if (streamed.has(key(request.method, request.routeOptions.url ?? ''))) {
      done(null, undefined);
      return;
    }
    done(unsupportedMediaType(), undefined);
  });
  // No route reads text/plain (Fastify would hand the handler a string its DTO then refuses as
  // if fields were missing). Without a body the header describes nothing: such a request goes on.
  fastify.addContentTypeParser('text/plain', (request, _payload, done) => {
    const length = request.headers['content-length'];
    const bodiless = request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
    if (bodiless) done(null, undefined);
    else done(unsupportedMediaType(), undefined);
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
    // Form values are UTF-8 (RFC 6749 Appendix B), whatever charset a client declares.
    const text = decodeUtf8(body);
    if (text === undefined) return done(notUtf8('form'));
    const params: Record<string, string> = {};
    for (const pair of text.split('&')) {
      if (pair === '') continue;
      const at = pair.indexOf('=');
      const name = formDecode(at < 0 ? pair : pair.slice(0, at));
      const value = formDecode(at < 0 ? '' : pair.slice(at + 1));
      if (name === undefined || value === undefined) return done(notUtf8('form'));
      if (Object.hasOwn(params, name)) {
        done(Object.assign(new Error(`The parameter ${name} is sent more than once`), { statusCode: 400 }));
        return;
      }
      params[name] = value;
    }
    done(null, params);
  };
}

/**
 * One name or value of a form body, decoded as URLSearchParams does (`+` is a space, `%XX` a
 * byte) except that percent-encoded bytes that are not UTF-8 give undefined instead of U+FFFD.
 */
function formDecode(text: string): string | undefined {
  let broken = false;
  const decoded = text.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const value = decodeUtf8(Buffer.from(run.replace(/%/g, ''), 'hex'));
    if (value === undefined) broken = true;
    return value ?? '';
  });
  return broken ? undefined : decoded;
}

const rawJsonTexts = new WeakMap<object, string>();

/** The exact text of a JSON body on a route declared `rawJson`; undefined on any other route or body. */
export function rawJsonBody(request: object): string | undefined {
  return rawJsonTexts.get(request);
}

type JsonParser = (
  request: { method: string; routeOptions: { url?: string }; headers?: Record<string, string | string[] | undefined> },
  body: Buffer,
  done: (err: Error | null, body?: unknown) => void,
) => void;

/**
 * The application/json parser (415 on the form routes): the body's bytes decoded as strict UTF-8 (a declared charset
 * other than UTF-8 is 415, bytes that are not UTF-8 are 400), then Fastify's own parser, as Nest
 * installs it by default (same body limit, prototype-poisoning rules and errors, a refused
 * `__proto__` named as such); it also keeps the text of `rawJson` routes. Registered through
 * Nest's useBodyParser, which then installs no parser of its own for the type.
 */
export function jsonParser(fastify: FastifyInstance, bodies: RouteBodies): JsonParser {
  const raw = new Set((bodies.rawJson ?? []).map((r) => key(r.method, r.url)));
  const forms = new Set((bodies.formUrlEncoded ?? []).map((r) => key(r.method, r.url)));
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig as {
    onProtoPoisoning?: 'error' | 'remove' | 'ignore';
    onConstructorPoisoning?: 'error' | 'remove' | 'ignore';
  };
  const parse = fastify.getDefaultJsonParser(onProtoPoisoning || 'error', onConstructorPoisoning || 'error');
  return (request, body, done) => {
    // A form route's parameters are a form (RFC 6749 §3.2), never JSON.
    if (forms.has(key(request.method, request.routeOptions.url ?? ''))) return done(unsupportedMediaType());
    const charset = checkUtf8Charset(request.headers?.['content-type']);
    if (charset) return done(charset);
    const text = decodeUtf8(body);
    if (text === undefined) return done(notUtf8('JSON'));
    if (raw.has(key(request.method, request.routeOptions.url ?? ''))) rawJsonTexts.set(request, text);
    parse(request as never, text, (err: Error | null, parsed?: unknown) => {
      if (err && (err as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        // Fastify says "not valid JSON" for prototype poisoning too: say which key it was.
        const forbidden = forbiddenKey(text);
        if (forbidden) return done(forbidden);
      }
      done(err, parsed);
    });
  };
}

/**
 * The refusal of a body that is valid JSON but holds a key the parser refuses (secure-json-parse:
 * `__proto__`, or `constructor` holding `prototype`), naming it and where it is; undefined when
 * the text is not valid JSON at all. Only runs after a refusal, so a valid body is parsed once.
 */
function forbiddenKey(text: string): AppError | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (!isObject(current)) continue;
    const at = (name: string) => (path ? `${path}.${name}` : name);
    const holdsPrototype =
      Object.hasOwn(current, 'constructor') &&
      isObject(current.constructor) &&
      Object.hasOwn(current.constructor, 'prototype');
    const found = Object.hasOwn(current, '__proto__')
      ? `"__proto__" (at ${at('__proto__')})`
      : holdsPrototype
        ? `"constructor" holding "prototype" (at ${at('constructor.prototype')})`
        : undefined;
    if (found)
      return new AppError({
        status: 400,
        code: ErrorCode.INVALID_JSON,
        message: `The request body contains the key ${found}, which is refused: it could change object prototypes`,
      });
    for (const [name, item] of Object.entries(current))
      pending.push({ value: item, path: Array.isArray(current) ? `${path}[${name}]` : at(name) });
  }
  return undefined;
}

/** The same refusal Fastify gives any content type without a parser (mapped to 415). */
function unsupportedMediaType(): Error {
  return Object.assign(new Error('Unsupported Content-Type'), {
    statusCode: 415,
    code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  });
}

/** The types clients declared on binary routes that the edge read as the route's own (see installRouteBodies). */
const declaredTypes = new WeakMap<object, string>();

const mediaTypeOf = (header: string): string => header.split(';')[0]!.trim().toLowerCase();

/** The media type the client declared for the body (lower case, no parameters; '' for none). */
export function declaredContentType(request: { raw: object; headers: { 'content-type'?: string } }): string {
  return mediaTypeOf(declaredTypes.get(request.raw) ?? request.headers['content-type'] ?? '');
}
