import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'kw:auth:public';
export const SESSION_ONLY_ROUTE = 'kw:auth:session-only';

/** The route needs no credential (health, version, sign-in). Every other route does. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * The route accepts only a signed-in browser session, never a bearer token (spec:
 * Authentication, "some dashboard and administration routes require a signed-in browser
 * session"). A personal access token gets 403 FORBIDDEN.
 */
export const SessionOnly = (): MethodDecorator & ClassDecorator => SetMetadata(SESSION_ONLY_ROUTE, true);
