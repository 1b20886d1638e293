import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '@kw/platform-config';

/** The names a local run is reached on; any other Host header is the caller's choice, not ours. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The base URL clients use for this deployment, and this server's identity: the issuer of its
 * discovery documents and the audience every ID-JAG and Security Event Token must name.
 * PUBLIC_URL when set (production must set it). Otherwise the documented default
 * `http://localhost:$PORT`, except that a request that came in on a loopback name with the
 * platform's own port (`localhost`, `127.0.0.1` or `[::1]`) gets that name, so local runs and
 * tests work with any of them (PORT=0: the port the server is bound to). Any other Host header
 * is ignored: a caller must not choose the issuer or the audience a JWT is checked against.
 */
export function publicBase(config: AppConfig, request: FastifyRequest): string {
  if (config.PUBLIC_URL) return config.publicUrl;
  const port = config.PORT || request.socket?.localPort || 0;
  const host = request.headers.host?.toLowerCase();
  const protocol = request.protocol === 'https' ? 'https' : 'http';
  if (host !== undefined && LOOPBACK_NAMES.some((name) => host === `${name}:${port}`)) return `${protocol}://${host}`;
  return `http://localhost:${port}`;
}
