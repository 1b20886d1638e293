import type { FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_COOKIE, isLocalHost, serializeCookie, SESSION_COOKIE } from '@kw/platform-http';

/**
 * kw_session is HttpOnly (scripts never see it); kw_csrf is readable so the dashboard can
 * echo it in x-csrf-token. Both SameSite=Lax, and Secure except on localhost over HTTP.
 */
export function setSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  session: { sessionToken: string; csrfToken: string; expiresAt: string },
): void {
  const expires = new Date(session.expiresAt);
  const secure = !isLocalHost(request.headers.host);
  void reply.header('set-cookie', [
    serializeCookie(SESSION_COOKIE, session.sessionToken, {
      httpOnly: true,
      secure,
      sameSite: 'Lax',
      path: '/',
      expires,
    }),
    serializeCookie(CSRF_COOKIE, session.csrfToken, { httpOnly: false, secure, sameSite: 'Lax', path: '/', expires }),
  ]);
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  const secure = !isLocalHost(request.headers.host);
  void reply.header('set-cookie', [
    serializeCookie(SESSION_COOKIE, '', { httpOnly: true, secure, sameSite: 'Lax', path: '/', maxAge: 0 }),
    serializeCookie(CSRF_COOKIE, '', { httpOnly: false, secure, sameSite: 'Lax', path: '/', maxAge: 0 }),
  ]);
}
