import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AppConfig } from '@kw/platform-config';
import { Public } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { publicBase } from '@kw/platform-http';
import { MCP_SCOPES } from './oauth-scopes.js';

/** RFC 9728 metadata: the MCP endpoint is a protected resource of this deployment's authorization server. */
@ApiTags('Discovery')
@Controller('.well-known')
export class ProtectedResourceController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  // Both addresses RFC 9728 §3.1 allows: the root one (what WWW-Authenticate's resource_metadata
  // names) and the one with the resource's path inserted, which MCP clients try first.
  @Get(['oauth-protected-resource', 'oauth-protected-resource/api/mcp'])
  @Public()
  @ApiOperation({ summary: 'OAuth protected resource metadata (RFC 9728) of the MCP endpoint' })
  metadata(@Req() request: FastifyRequest): Record<string, unknown> {
    const base = publicBase(this.config, request);
    return {
      resource: `${base}/api/mcp`,
      authorization_servers: [base],
      bearer_methods_supported: ['header'],
      // The scopes the tools use; the 401's WWW-Authenticate names the smaller default set,
      // which MCP clients ask for first (SEP-835).
      scopes_supported: [...MCP_SCOPES],
      resource_name: 'Knowledge workspace MCP server',
      resource_documentation: `${base}/docs/api-reference`,
    };
  }
}
