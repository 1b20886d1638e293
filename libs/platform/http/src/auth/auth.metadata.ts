import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';

/** OpenAPI extension marking public operations until the document is finished. */
export const PUBLIC_EXTENSION = 'x-kw-public';

/** @nestjs/swagger's operation-security metadata key (DECORATORS.API_SECURITY, not exported). */
const SWAGGER_SECURITY = 'swagger/apiSecurity';

export const PUBLIC_ROUTE = 'kw:auth:public';
export const SESSION_ONLY_ROUTE = 'kw:auth:session-only';
export const BEARER_ONLY_ROUTE = 'kw:auth:bearer-only';

/** The route needs no credential (health, version, sign-in). Every other route does. */
export const Public = (): MethodDecorator & ClassDecorator =>
  // Marked for the OpenAPI document, which turns it into `security: []` (see openapi.ts):
  // @nestjs/swagger drops an empty operation-level security list.
  applyDecorators(SetMetadata(PUBLIC_ROUTE, true), ApiExtension(PUBLIC_EXTENSION, true));

/**
 * The route accepts only a signed-in browser session, never a bearer token (spec:
 * Authentication, "some dashboard and administration routes require a signed-in browser
 * session"). A personal access token gets 403 FORBIDDEN.
 */
export const SessionOnly = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(SESSION_ONLY_ROUTE, true), SetMetadata(SWAGGER_SECURITY, [{ session: [] }]));

/**
 * The route takes its credential from the Authorization header only: a browser session's
 * cookie is not read there (spec: Authentication, "Other schemes": /api/v1/* and
 * /api/workspace-files/* are bearer-token surfaces; cookies are not reused by services). A
 * request with only a session answers 401 as one with nothing.
 */
export const BearerOnly = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(BEARER_ONLY_ROUTE, true), ApiBearerAuth('bearer'));
