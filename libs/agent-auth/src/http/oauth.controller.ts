import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AgentAuthService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { NoStore, Public, publicBase } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { RevokeRequestDto, TokenAnswerDto, TokenRequestDto } from './dto/agent-auth.dto.js';
import { clientCredentials, oauthParams } from './oauth-params.js';

const OAUTH_ERRORS =
  'RFC 6749 §5.2 body `{error, error_description}`: invalid_request, invalid_grant, invalid_scope, ' +
  'unsupported_grant_type, invalid_target (a `resource` other than the approved one, RFC 8707); for the claim grant also authorization_pending, slow_down, expired_token, access_denied (RFC 8628)';

/**
 * The OAuth 2.0 token and revocation endpoints of agent authentication
 * (docs/agent-authentication.md) and of OAuth applications (docs/oauth-applications.md).
 * Parameters are form-encoded only (RFC 6749 §3.2: a JSON body is 415 at the edge); answers are
 * never cached.
 */
@ApiTags('Agent authentication')
@Public()
@Controller('oauth2')
export class OAuthController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('token')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Token endpoint',
    description:
      'grant_type `authorization_code` with `code`, `redirect_uri` and `code_verifier` (PKCE) and client ' +
      'authentication (client_secret_basic, client_secret_post, or client_id alone for public clients); ' +
      '`urn:ietf:params:oauth:grant-type:jwt-bearer` with `assertion` (an ID-JAG), ' +
      '`urn:kw:agent-auth:grant-type:claim` with `claim_token` (poll at the given interval), or ' +
      '`refresh_token` (rotated at each use; a reused one revokes its grant; `scope` narrows the new access token ' +
      'to a subset of the grant).',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({ type: TokenAnswerDto })
  @ApiBadRequestResponse({ description: OAUTH_ERRORS })
  async token(@Body() body: unknown, @Req() request: FastifyRequest) {
    const params = oauthParams(body, [
      'grant_type',
      'assertion',
      'claim_token',
      'refresh_token',
      'scope',
      'code',
      'redirect_uri',
      'code_verifier',
      'resource',
      'client_id',
      'client_secret',
    ]);
    const client = clientCredentials(request.headers.authorization, params);
    const answer = await this.client.call(AgentAuthService.method.issueToken, {
      issuer: publicBase(this.config, request),
      grantType: params.grant_type ?? '',
      assertion: params.assertion,
      claimToken: params.claim_token,
      refreshToken: params.refresh_token,
      scope: params.scope,
      code: params.code,
      redirectUri: params.redirect_uri,
      codeVerifier: params.code_verifier,
      resource: params.resource,
      ...client,
    });
    return {
      access_token: answer.accessToken,
      token_type: answer.tokenType,
      expires_in: answer.expiresIn,
      refresh_token: answer.refreshToken,
      scope: answer.scope,
    };
  }

  @Post('revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a token (RFC 7009)',
    description:
      'An agent access token ends alone; a refresh token ends its whole grant; a claim token withdraws its claim. ' +
      'Unknown tokens answer 200 too.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: RevokeRequestDto })
  @ApiOkResponse({ description: 'Revoked, or nothing to revoke' })
  @ApiBadRequestResponse({ description: 'invalid_request: no token' })
  async revoke(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, never>> {
    const params = oauthParams(body, ['token', 'token_type_hint']);
    await this.client.call(AgentAuthService.method.revokeOAuthToken, {
      token: params.token ?? '',
      tokenTypeHint: params.token_type_hint,
    });
    void reply.header('cache-control', 'no-store');
    return {};
  }
}
