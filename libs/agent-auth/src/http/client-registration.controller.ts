import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { OAuthApplicationsService } from '@kw/contracts';
import { NoStore, Public } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import { oauthError } from '../domain/agent-auth/oauth-errors.js';
import { ClientRegisteredDto, ClientRegistrationDto } from './dto/oauth.dto.js';

const strings = (value: unknown, field: string, max: number): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > max || value.some((v) => typeof v !== 'string' || v.length > 2000))
    throw oauthError('invalid_client_metadata', `${field} must be a list of at most ${max} strings`);
  return value as string[];
};
const text = (value: unknown, field: string): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > 2000)
    throw oauthError('invalid_client_metadata', `${field} must be a string of at most 2,000 characters`);
  return value;
};

/**
 * RFC 7591 dynamic client registration, for MCP clients that know only the server's URL. Public;
 * limited per address (OAUTH_REGISTRATIONS_PER_HOUR); metadata it does not understand is ignored,
 * as the RFC says; unused registrations expire (docs/oauth-applications.md#dynamic-registration).
 */
@ApiTags('OAuth applications')
@Public()
@Controller('oauth2')
export class ClientRegistrationController {
  constructor(private readonly client: ServiceClient) {}

  @Post('register')
  @HttpCode(201)
  @NoStore()
  @ApiOperation({ summary: 'Register a client (RFC 7591)' })
  @ApiBody({ type: ClientRegistrationDto })
  @ApiCreatedResponse({ type: ClientRegisteredDto })
  @ApiBadRequestResponse({ description: 'RFC 7591 error body: invalid_redirect_uri, invalid_client_metadata' })
  async register(@Body() body: unknown, @Req() request: FastifyRequest): Promise<ClientRegisteredDto> {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw oauthError('invalid_request', 'The body must be a JSON object of client metadata');
    const metadata = body as Record<string, unknown>;
    const registered = await this.client.call(OAuthApplicationsService.method.registerClient, {
      ip: request.ip,
      redirectUris: strings(metadata.redirect_uris, 'redirect_uris', 10),
      clientName: text(metadata.client_name, 'client_name') ?? '',
      tokenEndpointAuthMethod: text(metadata.token_endpoint_auth_method, 'token_endpoint_auth_method') ?? '',
      grantTypes: strings(metadata.grant_types, 'grant_types', 5),
      responseTypes: strings(metadata.response_types, 'response_types', 5),
      scope: text(metadata.scope, 'scope'),
      clientUri: text(metadata.client_uri, 'client_uri'),
    });
    const application = registered.application!;
    return {
      client_id: application.id,
      ...(registered.clientSecret ? { client_secret: registered.clientSecret, client_secret_expires_at: 0 } : {}),
      client_id_issued_at: Number(registered.clientIdIssuedAt),
      client_name: application.name,
      redirect_uris: application.redirectUris,
      token_endpoint_auth_method: application.tokenEndpointAuthMethod,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: application.scopes.join(' '),
      ...(application.homepageUrl ? { client_uri: application.homepageUrl } : {}),
    };
  }
}
