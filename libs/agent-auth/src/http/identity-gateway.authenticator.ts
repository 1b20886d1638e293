import { Injectable, Optional } from '@nestjs/common';
import { IdentityService } from '@kw/contracts';
import {
  GatewayAuthenticator,
  unauthenticated,
  type AuthenticatedCaller,
  type AuthenticatedSession,
} from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import { classifyBearer } from '../domain/tokens/token-format.js';
import { fetchTokenAuthentication, TokenAuthenticationCache, toAuthenticatedCaller } from '@kw/platform-token-cache';

/**
 * The gateway's side of authentication: a bearer string that cannot be a token (a kwp_ token
 * with a wrong checksum, or a short opaque string) is refused here, before any message or
 * database lookup; a token authenticated moments ago is answered from the TokenAuthenticationCache;
 * everything else is resolved by IdentityService.
 */
@Injectable()
export class IdentityGatewayAuthenticator extends GatewayAuthenticator {
  constructor(
    private readonly client: ServiceClient,
    @Optional() private readonly tokenCache?: TokenAuthenticationCache,
  ) {
    super();
  }

  async authenticateBearer(token: string, ip: string): Promise<AuthenticatedCaller> {
    if (classifyBearer(token) === 'malformed') throw unauthenticated('The bearer token is malformed');
    const fetch = () => fetchTokenAuthentication(this.client, token, ip);
    return this.tokenCache ? this.tokenCache.authenticate(token, ip, fetch) : (await fetch()).caller;
  }

  async authenticateSession(sessionToken: string, ip: string): Promise<AuthenticatedSession> {
    const { caller, csrfTokenHash } = await this.client.call(IdentityService.method.authenticateSession, {
      sessionToken,
      ip,
    });
    return { ...toAuthenticatedCaller(caller), csrfTokenHash };
  }
}
