import { IdentityService, type Caller } from '@kw/contracts';
import { unauthenticated, type AuthenticatedCaller } from '@kw/platform-http';
import type { ServiceClient } from '@kw/platform-transport';
import type { FetchedAuthentication } from './token-authentication-cache.js';

/** agent-auth's caller as the HTTP side needs it; an answer without an account is 401. */
export function toAuthenticatedCaller(caller: Caller | undefined): AuthenticatedCaller {
  if (!caller?.auth || !caller.user || !caller.auth.userId) throw unauthenticated();
  return { auth: caller.auth, user: caller.user };
}

/**
 * Asks agent-auth about a bearer token (AuthenticateToken, which also counts the use): the
 * caller, and the token's expiry if it has one, as TokenAuthenticationCache stores them.
 */
export async function fetchTokenAuthentication(
  client: ServiceClient,
  token: string,
  ip: string,
): Promise<FetchedAuthentication> {
  const { caller, expiresAt } = await client.call(IdentityService.method.authenticateToken, { token, ip });
  return {
    caller: toAuthenticatedCaller(caller),
    expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt),
  };
}
