import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '@kw/platform-config';

/**
 * The base URL clients use for this deployment: PUBLIC_URL when set (production must set it);
 * otherwise the address this request came in on, so a local run on any port (PORT=0 in tests)
 * advertises URLs that work.
 */
export function publicBase(config: AppConfig, request: FastifyRequest): string {
  if (config.PUBLIC_URL) return config.publicUrl;
  return `${request.protocol}://${request.headers.host ?? `localhost:${config.PORT}`}`;
}
