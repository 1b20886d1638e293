import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { acceptOrCreateRequestId, requestContext } from '@kw/platform-context';
import type { PlatformMetrics } from '@kw/platform-observability';
import { AllExceptionsFilter } from './all-exceptions.filter.js';
import { ErrorResponder } from './error-responder.js';
import { ambiguousAuthorization } from './auth/ambiguous-authorization.js';
import { checkBody, checkParameters } from './input-guard.js';
import { RouteTable } from './route-table.js';
import { createValidationPipe } from './validation.js';

const REQUEST_ID_HEADER = 'x-request-id';
const started = Symbol('kw.started');

type TimedRequest = FastifyRequest & { [started]?: bigint };

/**
 * Wires the cross-cutting HTTP behaviour every process's Fastify instance shares: request id
 * and request context, access logs and metrics, validation, and the one error mapping.
 * Must run before app.init() so the route table sees every route.
 */
export function installHttpEdge(app: NestFastifyApplication, deps: { logger: Logger; metrics: PlatformMetrics }): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const routes = new RouteTable();
  const responder = new ErrorResponder(deps.logger, routes);

  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));

  fastify.addHook('onRequest', (request, reply, done) => {
    const requestId = acceptOrCreateRequestId(request.headers[REQUEST_ID_HEADER]);
    (request as TimedRequest)[started] = process.hrtime.bigint();
    void reply.header(REQUEST_ID_HEADER, requestId);
    const ambiguous = ambiguousAuthorization(request);
    requestContext.run({ requestId }, () => done(ambiguous));
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    const begin = (request as TimedRequest)[started];
    const seconds = begin ? Number(process.hrtime.bigint() - begin) / 1e9 : 0;
    const route = request.routeOptions?.url ?? 'unmatched';
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
  app.useGlobalFilters(new AllExceptionsFilter(responder));
  app.useGlobalPipes(createValidationPipe());
}

/**
 * Bodies (whatever parser read them: JSON, form), query and path parameters are checked by the
 * input guard once parsed and before validation, authentication or a handler: a refusal is a
 * 400 in the error model and costs no more than reading the input.
 */
function installInputGuard(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', (request, _reply, done) => {
    done(checkParameters(request.params) ?? checkParameters(request.query) ?? checkBody(request.body));
  });
}
