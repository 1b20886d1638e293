import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { unauthenticated } from './auth-errors.js';
import { callerOf } from './request-caller.js';

function requireCaller(context: ExecutionContext) {
  const caller = callerOf(context.switchToHttp().getRequest<FastifyRequest>());
  // Only reachable on a @Public() route, where asking for the caller is a programming error.
  if (!caller) throw unauthenticated();
  return caller;
}

/** The caller's AuthContext (`@kw/contracts`): user id, credential, scopes, workspaces. */
export const CurrentAuth = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => requireCaller(context).auth,
);

/** The caller's account (`User` of the identity contract), as it was when the request was authenticated. */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => requireCaller(context).user,
);
