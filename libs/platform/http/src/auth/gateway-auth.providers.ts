import type { Provider, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard.js';
import { BearerStrategy } from './bearer.strategy.js';
import { GatewayAuthenticator } from './gateway-authenticator.js';

/**
 * What an HTTP module adds to authenticate every route of the process: the global guard,
 * the passport bearer strategy, and the authenticator that resolves credentials.
 * Provided once per API process (by the component that issues credentials).
 */
export function gatewayAuthProviders(authenticator: Type<GatewayAuthenticator>): Provider[] {
  return [
    { provide: GatewayAuthenticator, useClass: authenticator },
    BearerStrategy,
    { provide: APP_GUARD, useClass: AuthGuard },
  ];
}
