import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '@kw/platform-config';
import { publicBase, type ErrorHeaders } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { admittedOrigin, allowedOrigins, corsHeaders } from './origin-policy.js';

const MCP_PATH = '/api/mcp';

/**
 * CORS headers for an error the HTTP edge raised on /api/mcp before the endpoint ran (413, 415,
 * 400 INVALID_JSON, the input guard's refusals, an anonymous caller's 429): a page of an
 * admitted origin (the deployment's own, MCP_ALLOWED_ORIGINS) gets the headers the endpoint
 * would have given it, so its script reads the error instead of an opaque failure. A foreign
 * origin, or a request without Origin, adds nothing: the error goes out as it is.
 */
@Injectable()
export class McpErrorCors implements ErrorHeaders {
  private readonly origins: Set<string>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.origins = allowedOrigins(config);
  }

  headersFor(
    request: FastifyRequest,
    sentHeaders: Record<string, unknown>,
  ): Promise<Record<string, string>> | undefined {
    const origin = request.headers.origin;
    if (origin === undefined || request.url.split('?', 1)[0] !== MCP_PATH) return undefined;
    // The endpoint ran and set them (or refused the origin, which gets none).
    if (sentHeaders['access-control-allow-origin'] !== undefined) return undefined;
    const admitted = admittedOrigin(origin, this.origins, publicBase(this.config, request));
    return admitted === undefined ? undefined : Promise.resolve(corsHeaders(admitted));
  }
}
