import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ACTIONS } from '@kw/platform-access-policy';
import type { AppConfig } from '@kw/platform-config';
import { Public, publicBase } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';

/**
 * Authorization server metadata (RFC 8414) and its OpenID Connect twin, for MCP clients and
 * agents discovering how to get a token. Today the bearer credentials are personal access
 * tokens made in the API; the OAuth2 grants (token endpoint, identity assertions) fill in the
 * grant fields when agent authentication lands: until then they are listed empty, not invented.
 */
@ApiTags('Discovery')
@Controller('.well-known')
export class DiscoveryController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('oauth-authorization-server')
  @Public()
  @ApiOperation({ summary: 'OAuth 2.0 authorization server metadata (RFC 8414)' })
  authorizationServer(@Req() request: FastifyRequest): Record<string, unknown> {
    return this.metadata(publicBase(this.config, request));
  }

  @Get('openid-configuration')
  @Public()
  @ApiOperation({ summary: 'OpenID Connect discovery document' })
  openidConfiguration(@Req() request: FastifyRequest): Record<string, unknown> {
    return {
      ...this.metadata(publicBase(this.config, request)),
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat'],
    };
  }

  private metadata(base: string): Record<string, unknown> {
    return {
      issuer: base,
      token_endpoint: `${base}/oauth2/token`,
      revocation_endpoint: `${base}/oauth2/revoke`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: [],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: [],
      scopes_supported: [...ACTIONS],
      service_documentation: `${base}/docs/api-reference`,
    };
  }
}
