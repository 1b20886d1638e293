import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { acceptOrCreateRequestId, requestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { PlatformMetrics } from '@kw/platform-observability';
import { extractTraceContext, SpanKind, SpanStatusCode, startSpan, type Span } from '@kw/platform-tracing';
import { AllExceptionsFilter } from './all-exceptions.filter.js';
import { ERROR_HEADERS, type ErrorHeaders } from './error-headers.js';
import { ErrorResponder } from './error-responder.js';
import { ambiguousAuthorization } from './auth/ambiguous-authorization.js';
import { checkBody, checkParameters, OWN_QUERY_CHECK } from './input-guard.js';
import { missingHost } from './missing-host.js';
import { installBodyIdleTimeout } from './receive-timeouts.js';
import { formUrlEncodedParser, installRouteBodies, jsonParser, type RouteBodies } from './route-bodies.js';
import { RouteTable } from './route-table.js';
import { createValidationPipe } from './validation.js';

const REQUEST_ID_HEADER = 'x-request-id';
const started = Symbol('kw.started');
const serverSpan = Symbol('kw.span');
/** Probes and scrapes are not traced: they would be most of the traces and tell nothing. */
const UNTRACED_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

type TimedRequest = FastifyRequest & { [started]?: bigint; [serverSpan]?: Span };

/**
 * Wires the cross-cutting HTTP behaviour every process's Fastify instance shares: request id
 * and request context, access logs and metrics, validation, and the one error mapping.
 * Must run before app.init() so the route table sees every route.
 */
export function installHttpEdge(
  app: NestFastifyApplication,
  deps: {
    logger: Logger;
    metrics: PlatformMetrics;
    routeBodies?: RouteBodies;
    /**
     * True once the process drains (SIGTERM). A request that still arrives then (on a keep-alive
     * connection, or pipelined behind one in flight) is refused with 503 in the error model,
     * `Connection: close`, and a request id (Fastify's own 503 for this has neither).
     */
    draining?: () => boolean;
    /** A request body that gets no byte for this long is answered 408 (`BODY_IDLE_TIMEOUT_MS`). */
    bodyIdleTimeoutMs?: number;
    /** The slowest average a body may arrive at once it has been sending that long (`BODY_MIN_BYTES_PER_SECOND`; 0: any). */
    bodyMinBytesPerSecond?: number;
  },
): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  installRouteBodies(fastify, deps.routeBodies ?? {});
  app.useBodyParser('application/x-www-form-urlencoded', {}, formUrlEncodedParser(deps.routeBodies ?? {}) as never);
  app.useBodyParser(
    'application/json',
    { bodyLimit: fastify.initialConfig.bodyLimit },
    jsonParser(fastify, deps.routeBodies ?? {}) as never,
  );
  const routes = new RouteTable(fastify.initialConfig.routerOptions);
  const responder = new ErrorResponder(deps.logger, routes);

  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));

  fastify.addHook('onRequest', (request, reply, done) => {
    const requestId = acceptOrCreateRequestId(request.headers[REQUEST_ID_HEADER]);
    (request as TimedRequest)[started] = process.hrtime.bigint();
    void reply.header(REQUEST_ID_HEADER, requestId);
    const shadowed = responder.shadowedRoute(request);
    if (shadowed) return requestContext.run({ requestId }, () => responder.send(request, reply, shadowed));
    const route = request.routeOptions?.url;
    const draining = deps.draining?.() === true && !UNTRACED_ROUTES.has(route ?? '');
    if (draining) void reply.header('connection', 'close');
    const noHost = draining ? undefined : missingHost(request);
    // Node closed such a connection; so does the platform (what follows on it is not trusted).
    if (noHost) void reply.header('connection', 'close');
    const refused = draining ? shuttingDown() : (noHost ?? ambiguousAuthorization(request));
    // The request's server span (a no-op while tracing is off), child of the caller's `traceparent`.
    const traced = UNTRACED_ROUTES.has(route ?? '')
      ? undefined
      : startSpan(`${request.method} ${route ?? 'unmatched'}`, {
          kind: SpanKind.SERVER,
          parent: extractTraceContext(request.headers),
          attributes: { 'http.request.method': request.method, 'kw.request_id': requestId },
        });
    if (!traced) return requestContext.run({ requestId }, () => done(refused));
    (request as TimedRequest)[serverSpan] = traced.span;
    traced.run(() => requestContext.run({ requestId }, () => done(refused)));
  });

  // After the request id is set: a 408 carries it. Not for a request the edge refused above.
  if (deps.bodyIdleTimeoutMs)
    installBodyIdleTimeout(
      fastify,
      { idleMs: deps.bodyIdleTimeoutMs, minBytesPerSecond: deps.bodyMinBytesPerSecond ?? 0 },
      responder,
    );

  fastify.addHook('onResponse', (request, reply, done) => {
    const begin = (request as TimedRequest)[started];
    const seconds = begin ? Number(process.hrtime.bigint() - begin) / 1e9 : 0;
    const route = request.routeOptions?.url ?? 'unmatched';
    endServerSpan((request as TimedRequest)[serverSpan], request.routeOptions?.url, reply.statusCode);
    deps.metrics.httpRequests.observe({ method: request.method, route, status: String(reply.statusCode) }, seconds);
    // The line is only built when it is written (LOG_LEVEL above info skips access logs).
    if (deps.logger.isLevelEnabled('info')) {
      deps.logger.info(
        {
          method: request.method,
          route,
          url: request.url.split('?')[0],
          status: reply.statusCode,
          ms: Math.round(seconds * 1e6) / 1e3,
        },
        'request',
      );
    }
    done();
  });

  installInputGuard(fastify);

  // Fastify's own errors (body parsing, size limits) reach the filter too: Nest installs
  // Fastify's error handler at init and routes them through its exception filters.
  // Looked up at the first error (requests come after init), then kept.
  let errorHeaders: readonly ErrorHeaders[] | undefined;
  const findErrorHeaders = () => (errorHeaders ??= componentErrorHeaders(app));
  app.useGlobalFilters(new AllExceptionsFilter(responder, findErrorHeaders));
  app.useGlobalPipes(createValidationPipe());
}

/** The answer to a request that arrives while the process drains: retry it (on another connection). */
function shuttingDown(): AppError {
  return new AppError({
    status: 503,
    code: ErrorCode.SERVICE_UNAVAILABLE,
    message: 'This server is shutting down; retry the request on a new connection',
    details: { retryAfterSeconds: 1 },
  });
}

function endServerSpan(span: Span | undefined, route: string | undefined, status: number): void {
  if (!span) return;
  if (route) span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * Bodies (whatever parser read them: JSON, form), query and path parameters are checked by the
 * input guard once parsed and before validation, authentication or a handler: a refusal is a
 * 400 in the error model and costs no more than reading the input. A route marked ChecksOwnQuery
 * (a page a browser loads) checks its query itself and answers in its own form.
 */
function installInputGuard(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', (request, _reply, done) => {
    // A route that answers the refusal its own way (a page) checks its query itself (ChecksOwnQuery).
    const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
    const ownQuery = config?.[OWN_QUERY_CHECK] === true;
    done(
      checkParameters(request.params) ??
        (ownQuery ? undefined : checkParameters(request.query, request.url)) ??
        checkBody(request.body),
    );
  });
}

/** The ErrorHeaders every component provides (none, one or several). */
function componentErrorHeaders(app: NestFastifyApplication): readonly ErrorHeaders[] {
  try {
    return app.get<ErrorHeaders>(ERROR_HEADERS, { strict: false, each: true });
  } catch {
    return [];
  }
}
