import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import passport from 'passport';
import { Strategy, type VerifyFunctionWithRequest } from 'passport-http-bearer';
import { unauthenticated } from './auth-errors.js';
import { GatewayAuthenticator, type AuthenticatedCaller } from './gateway-authenticator.js';

export const BEARER_STRATEGY = 'kw-bearer';

/**
 * What passport sees of a request: the Authorization header and the caller's address,
 * nothing else. passport-http-bearer would also read `access_token` from the query string
 * and the body; tokens there are ignored on purpose (they end up in logs, proxies and
 * browser history), so those parts never reach it.
 */
export interface BearerRequestView {
  headers: { authorization?: string };
  ip: string;
}

/** `Authorization: Bearer <token>` through passport-http-bearer, verified by the GatewayAuthenticator. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy<VerifyFunctionWithRequest>, BEARER_STRATEGY) {
  constructor(private readonly authenticator: GatewayAuthenticator) {
    super({ passReqToCallback: true, realm: 'kw' });
  }

  validate(request: BearerRequestView, token: string): Promise<AuthenticatedCaller> {
    return this.authenticator.authenticateBearer(token, request.ip);
  }
}

/** Runs the bearer strategy on the header-only view of a request; 401 AppError when refused. */
export function authenticateBearer(view: BearerRequestView): Promise<AuthenticatedCaller> {
  return new Promise((resolve, reject) => {
    const middleware = passport.authenticate(
      BEARER_STRATEGY,
      { session: false },
      (err: unknown, caller: AuthenticatedCaller | false) => {
        if (err) reject(err);
        else if (!caller) reject(unauthenticated('The bearer credential is malformed or not accepted'));
        else resolve(caller);
      },
    ) as (req: unknown, res: unknown, next: (err?: unknown) => void) => void;
    middleware(view, {}, (err) => reject(err ?? unauthenticated()));
  });
}
