import type { AuthContext, User } from '@kw/contracts';

/** Who is calling, as the identity service established it. */
export interface AuthenticatedCaller {
  auth: AuthContext;
  user: User;
}

export interface AuthenticatedSession extends AuthenticatedCaller {
  /** SHA-256 (hex) of the session's CSRF token, for the double-submit check. */
  csrfTokenHash: string;
}

/**
 * Turns a credential into a caller. The guard (platform, domain-free) depends on this
 * abstraction; the component that issues credentials provides it (agent-auth's HTTP module:
 * a no-I/O format check, then IdentityService over the transport). Both methods throw
 * AppError 401 UNAUTHENTICATED for anything not accepted.
 */
export abstract class GatewayAuthenticator {
  abstract authenticateBearer(token: string, ip: string): Promise<AuthenticatedCaller>;
  abstract authenticateSession(sessionToken: string, ip: string): Promise<AuthenticatedSession>;
}
