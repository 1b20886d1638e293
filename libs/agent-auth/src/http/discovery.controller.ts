import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AppConfig } from '@kw/platform-config';
import { Public, publicBase } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { AGENT_SCOPES } from '../domain/agent-auth/agent-scopes.js';
import {
  EVENT_TYPES,
  GRANT_CLAIM,
  GRANT_TYPES,
  ID_JAG_TOKEN_TYPE,
  IDENTITY_TYPES,
  TOKEN_ENDPOINT_AUTH_METHODS,
} from '../domain/agent-auth/oauth.js';

/**
 * Authorization server metadata (RFC 8414), for MCP clients and agents discovering how to get a
 * token: the token and revocation endpoints with their grants, and the `agent_auth` member
 * (spec: Agent authentication, step 1) naming the identity, claim and event endpoints. Every URL
 * advertised answers. The spec also names `/.well-known/openid-configuration`, which clients
 * that discover the OpenID way read first (openid-client, the MCP SDK's fallback): it carries
 * the same document and nothing more. The platform is no OpenID Provider (no `openid` scope, ID
 * token or userinfo), so it advertises none of their members (docs/agent-authentication.md#discovery).
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
  @ApiOperation({
    summary: 'The authorization server metadata at the OpenID discovery address',
    description:
      'The same document as /.well-known/oauth-authorization-server, for clients that discover there first. ' +
      'No ID tokens are issued: no OpenID Provider members.',
  })
  openidConfiguration(@Req() request: FastifyRequest): Record<string, unknown> {
    return this.metadata(publicBase(this.config, request));
  }

  private metadata(base: string): Record<string, unknown> {
    return {
      issuer: base,
      token_endpoint: `${base}/oauth2/token`,
      revocation_endpoint: `${base}/oauth2/revoke`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      authorization_endpoint: `${base}/oauth2/authorize`,
      registration_endpoint: `${base}/oauth2/register`,
      grant_types_supported: [...GRANT_TYPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      // Confidential applications authenticate; agents and public clients name themselves (PKCE,
      // the assertion, the claim token or the refresh token is the proof).
      token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
      revocation_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
      scopes_supported: [...AGENT_SCOPES],
      service_documentation: `${base}/docs/api-reference`,
      agent_auth: {
        identity_endpoint: `${base}/agent/identity`,
        claim_endpoint: `${base}/agent/identity/claim`,
        event_endpoint: `${base}/agent/event/notify`,
        token_endpoint: `${base}/oauth2/token`,
        revocation_endpoint: `${base}/oauth2/revoke`,
        identity_types_supported: [...IDENTITY_TYPES],
        assertion_types_supported: [ID_JAG_TOKEN_TYPE],
        claim_grant_type: GRANT_CLAIM,
        events_supported: Object.values(EVENT_TYPES),
      },
    };
  }
}
