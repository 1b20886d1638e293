import type { FastifyRequest } from 'fastify';
import { requestContext } from '@kw/platform-context';
import type { AuthenticatedCaller } from './gateway-authenticator.js';

const CALLER = Symbol.for('kw.http.caller');

type WithCaller = FastifyRequest & { [CALLER]?: AuthenticatedCaller };

/**
 * Makes `caller` the request's caller: readable with callerOf(request), and its AuthContext in
 * the request context, so every message sent for this request carries it.
 */
export function attachCaller(request: FastifyRequest, caller: AuthenticatedCaller): void {
  (request as WithCaller)[CALLER] = caller;
  const current = requestContext.current();
  if (current) current.auth = caller.auth;
}

/** The caller the AuthGuard established for this request; undefined on @Public() routes. */
export function callerOf(request: FastifyRequest): AuthenticatedCaller | undefined {
  return (request as WithCaller)[CALLER];
}
