import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AgentAuthService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { NoStore, Public, publicBase } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { setError } from '../domain/agent-auth/oauth-errors.js';
import {
  JWT_MAX_LENGTH,
  RegisterAgentDto,
  RegisteredAgentDto,
  RenewClaimDto,
  RenewedClaimDto,
} from './dto/agent-auth.dto.js';

/**
 * Agent registration (POST /agent/identity), claim renewal and inbound Security Event Tokens
 * (docs/agent-authentication.md). Public: the assertion, the claim token or the SET's
 * signature is the credential.
 */
@ApiTags('Agent authentication')
@Public()
@Controller('agent')
export class AgentIdentityController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('identity')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Register an agent',
    description:
      '`identity_assertion`: a trusted ID-JAG is verified (and used up) and bound to the account of its ' +
      'verified email (no account is created). `service_auth`: a claim starts; send the person to ' +
      '`claim.verification_uri` and poll the token endpoint with `claim_token` every `interval` seconds. ' +
      'The answer does not depend on whether `login_hint` has an account.',
  })
  @ApiOkResponse({ type: RegisteredAgentDto })
  @ApiBadRequestResponse({ description: 'RFC 6749 error body: invalid_request, invalid_grant, invalid_scope' })
  async register(@Body() body: RegisterAgentDto, @Req() request: FastifyRequest): Promise<RegisteredAgentDto> {
    const answer = await this.client.call(AgentAuthService.method.registerAgent, {
      issuer: publicBase(this.config, request),
      type: body.type,
      assertionType: body.assertion_type ?? '',
      assertion: body.assertion ?? '',
      loginHint: body.login_hint ?? '',
      scope: body.scope,
      clientName: body.client_name,
    });
    if (body.type === 'identity_assertion')
      return { user_id: answer.userId, agent_name: answer.agentName, scopes: answer.scopes };
    return {
      claim: { verification_uri: answer.claim!.verificationUri, expires_in: answer.claim!.expiresIn },
      claim_token: answer.claimToken,
      expires_in: answer.expiresIn,
      interval: answer.interval,
    };
  }

  @Post('identity/claim')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Renew the user-code window of a claim',
    description: "While the claim token is valid and the claim undecided; `email` must be the claim's login_hint.",
  })
  @ApiOkResponse({ type: RenewedClaimDto })
  @ApiBadRequestResponse({ description: 'RFC 6749 error body: invalid_request, invalid_grant, expired_token' })
  async renew(@Body() body: RenewClaimDto, @Req() request: FastifyRequest): Promise<RenewedClaimDto> {
    const answer = await this.client.call(AgentAuthService.method.renewClaim, {
      issuer: publicBase(this.config, request),
      claimToken: body.claim_token,
      email: body.email,
    });
    return {
      claim: { verification_uri: answer.claim!.verificationUri, expires_in: answer.claim!.expiresIn },
      expires_in: answer.expiresIn,
      interval: answer.interval,
    };
  }

  @Post('event/notify')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Receive a Security Event Token (RFC 8935 push delivery)',
    description:
      'Body: a SET (`application/secevent+jwt`) signed by a trusted identity provider for this server. ' +
      'The effect of each event is applied before the 202 (docs/agent-authentication.md#security-events).',
  })
  @ApiConsumes('application/secevent+jwt')
  @ApiBody({ schema: { type: 'string', description: 'The compact SET' } })
  @ApiAcceptedResponse({ description: 'Accepted and applied' })
  @ApiBadRequestResponse({
    description:
      'RFC 8935 §2.3 body `{err, description}`: invalid_request, invalid_key, invalid_issuer, invalid_audience, authentication_failed',
  })
  async notify(@Body() body: unknown, @Req() request: FastifyRequest): Promise<void> {
    if (typeof body !== 'string' || body.length === 0 || body.length > JWT_MAX_LENGTH)
      throw setError('invalid_request', 'The body must be one SET, Content-Type application/secevent+jwt');
    await this.client.call(AgentAuthService.method.receiveSecurityEvent, {
      issuer: publicBase(this.config, request),
      set: body,
    });
  }
}
