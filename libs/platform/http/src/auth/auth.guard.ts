import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, type CanActivate, type ExecutionContext, type OnModuleInit } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@kw/platform-errors';
import { csrfFailed, sessionRequired, unauthenticated, WWW_AUTHENTICATE } from './auth-errors.js';
import { BEARER_ONLY_ROUTE, PUBLIC_ROUTE, SESSION_ONLY_ROUTE } from './auth.metadata.js';
import { authenticateBearer } from './bearer.strategy.js';
import { admittedAuthentication, findEdgeAdmission, type EdgeAdmission } from './edge-admission.js';
import { CSRF_COOKIE, CSRF_HEADER, parseCookies, SESSION_COOKIE } from './cookies.js';
import { GatewayAuthenticator, type AuthenticatedCaller } from './gateway-authenticator.js';
import { findQueryKeyAuthenticator, queryKeyOf, QUERY_KEY_ROUTE, type QueryKeyAuthenticator } from './query-key.js';
import { attachCaller } from './request-caller.js';
import { assertAudience } from './audience.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a route asks of its caller, from @Public() and @SessionOnly(). */
interface RouteAuth {
  public: boolean;
  sessionOnly: boolean;
  /** The session cookie is not read: only the Authorization header (or a query key). */
  bearerOnly: boolean;
  /** The purpose of @AcceptsQueryKey, or undefined. */
  queryKey: string | undefined;
}

/** The handler and controller class whose metadata (@Public, @SessionOnly) applies. */
type RouteTargets = Array<ReturnType<ExecutionContext['getHandler']> | ReturnType<ExecutionContext['getClass']>>;

/**
 * Authenticates every HTTP request at the edge (registered as APP_GUARD): a route needs a
 * credential unless it is @Public(). A bearer header (personal access token) wins over a
 * session cookie; tokens in the query string or body are ignored. The caller's AuthContext
 * goes into the request context, so every message sent for this request carries it. Then the
 * edge's admission (rate limits), when the process has one, on every route, public ones too.
 */
@Injectable()
export class AuthGuard implements CanActivate, OnModuleInit {
  private admission?: EdgeAdmission;
  private queryKeys?: QueryKeyAuthenticator;
  private readonly routes = new WeakMap<object, RouteAuth>();

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: GatewayAuthenticator,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    this.admission = findEdgeAdmission(this.moduleRef);
    this.queryKeys = findQueryKeyAuthenticator(this.moduleRef);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const route = this.routeOf(context);
    if (!route.public) await this.establishCaller(request, reply, route);
    await this.admission?.admit(request, reply);
    return true;
  }

  /** A handler's @Public / @SessionOnly, read once: metadata does not change after start-up. */
  private routeOf(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    let route = this.routes.get(handler);
    if (!route) {
      const targets: RouteTargets = [handler, context.getClass()];
      route = {
        public: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true,
        sessionOnly: this.reflector.getAllAndOverride<boolean>(SESSION_ONLY_ROUTE, targets) === true,
        bearerOnly: this.reflector.getAllAndOverride<boolean>(BEARER_ONLY_ROUTE, targets) === true,
        queryKey: this.reflector.getAllAndOverride<string | undefined>(QUERY_KEY_ROUTE, targets),
      };
      this.routes.set(handler, route);
    }
    return route;
  }

  private async establishCaller(request: FastifyRequest, reply: FastifyReply, route: RouteAuth): Promise<void> {
    const queryKey = route.queryKey !== undefined && this.queryKeys ? queryKeyOf(request) : undefined;
    if (queryKey !== undefined) {
      // A key instead of a platform credential (the Authorization header, if any, is the key
      // issuer's business: the embed widget sends the host page's JWT there).
      const caller = await admittedAuthentication(this.admission, request, reply, queryKey, () =>
        this.queryKeys!.authenticate(request, route.queryKey!),
      );
      attachCaller(request, caller);
      return;
    }
    const authorization = request.headers.authorization;
    const cookies = authorization === undefined && !route.bearerOnly ? parseCookies(request.headers.cookie) : {};
    const credential = authorization ?? cookies[SESSION_COOKIE];
    let caller: AuthenticatedCaller;
    try {
      caller = await admittedAuthentication(this.admission, request, reply, credential, () =>
        this.authenticate(request, authorization, cookies),
      );
    } catch (err) {
      if (AppError.isAppError(err) && err.status === 401) void reply.header('www-authenticate', WWW_AUTHENTICATE);
      throw err;
    }
    if (caller.auth.credentialKind !== 'session' && route.sessionOnly) {
      throw sessionRequired();
    }
    // An OAuth token bound to one resource (RFC 8707) works only there.
    if (caller.auth.audience) {
      try {
        assertAudience(caller.auth.audience, request.url);
      } catch (err) {
        void reply.header('www-authenticate', `${WWW_AUTHENTICATE}, error="invalid_token"`);
        throw err;
      }
    }
    attachCaller(request, caller);
  }

  private async authenticate(
    request: FastifyRequest,
    authorization: string | undefined,
    cookies: Record<string, string>,
  ): Promise<AuthenticatedCaller> {
    if (authorization !== undefined) return authenticateBearer({ headers: { authorization }, ip: request.ip });

    const sessionToken = cookies[SESSION_COOKIE];
    if (!sessionToken) throw unauthenticated();
    const session = await this.authenticator.authenticateSession(sessionToken, request.ip);
    if (!SAFE_METHODS.has(request.method))
      checkCsrf(request.headers[CSRF_HEADER], cookies[CSRF_COOKIE], session.csrfTokenHash);
    return session;
  }
}

/**
 * Double-submit check: the header must equal the kw_csrf cookie (which a cross-site page can
 * neither read nor set), and that value must be the one issued with this session.
 */
export function checkCsrf(
  header: string | string[] | undefined,
  cookie: string | undefined,
  expectedHash: string,
): void {
  if (typeof header !== 'string' || !header || !cookie || !expectedHash) throw csrfFailed();
  const a = Buffer.from(header);
  const b = Buffer.from(cookie);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw csrfFailed();
  const hash = Buffer.from(createHash('sha256').update(header).digest('hex'));
  const expected = Buffer.from(expectedHash);
  if (hash.length !== expected.length || !timingSafeEqual(hash, expected)) throw csrfFailed();
}
