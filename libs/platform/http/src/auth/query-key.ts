import { SetMetadata } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from './gateway-authenticator.js';

/** The query parameter a key-authenticated request carries its key in. */
export const QUERY_KEY_PARAM = 'key';
export const QUERY_KEY_ROUTE = 'kw:auth:query-key';

/**
 * The route also accepts a key in the `key` query parameter instead of a platform credential:
 * the embed widget's frame reaches the workspace file byte proxy this way. `purpose` tells the
 * component that issues such keys which use is asked for (it may refuse it).
 */
export const AcceptsQueryKey = (purpose: string): MethodDecorator & ClassDecorator =>
  SetMetadata(QUERY_KEY_ROUTE, purpose);

/**
 * Turns a request with a query key into a caller (the chat component's embed keys). Throws
 * AppError 401/403 for anything not accepted. Provided under QUERY_KEY_AUTHENTICATOR.
 */
export interface QueryKeyAuthenticator {
  authenticate(request: FastifyRequest, purpose: string): Promise<AuthenticatedCaller>;
}

export const QUERY_KEY_AUTHENTICATOR = Symbol('QUERY_KEY_AUTHENTICATOR');

/** The process's query-key authenticator, when a component provides one. */
export function findQueryKeyAuthenticator(moduleRef: ModuleRef): QueryKeyAuthenticator | undefined {
  try {
    return moduleRef.get<QueryKeyAuthenticator>(QUERY_KEY_AUTHENTICATOR, { strict: false });
  } catch {
    return undefined;
  }
}

/** The request's query key, when it has exactly one. */
export function queryKeyOf(request: FastifyRequest): string | undefined {
  const key = (request.query as Record<string, unknown> | undefined)?.[QUERY_KEY_PARAM];
  return typeof key === 'string' && key ? key : undefined;
}
