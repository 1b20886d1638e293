import type { FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from './gateway-authenticator.js';

const CALLER = Symbol.for('kw.http.caller');

type WithCaller = FastifyRequest & { [CALLER]?: AuthenticatedCaller };

export function attachCaller(request: FastifyRequest, caller: AuthenticatedCaller): void {
  (request as WithCaller)[CALLER] = caller;
}

/** The caller the AuthGuard established for this request; undefined on @Public() routes. */
export function callerOf(request: FastifyRequest): AuthenticatedCaller | undefined {
  return (request as WithCaller)[CALLER];
}
