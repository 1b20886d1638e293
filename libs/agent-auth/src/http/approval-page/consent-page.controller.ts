import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiFoundResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthApplicationsService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import {
  attachCaller,
  checkParameters,
  ChecksOwnQuery,
  GatewayAuthenticator,
  Public,
  publicBase,
  registerErrorPage,
  SessionOnly,
} from '@kw/platform-http';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { AUTHORIZE_PARAM_MAX } from '../../domain/agent-auth/oauth.js';
import { AuthorizationDecidedDto, AuthorizationDecisionDto } from '../dto/oauth.dto.js';
import { CONSENT_ERROR_PAGE, sendApprovalPage, sendApprovalPageError } from './approval-page.js';
import { pageSession, reviewExtras } from './page-session.js';

const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;
type AuthorizeParam = (typeof AUTHORIZE_PARAMS)[number];

/**
 * The authorization endpoint and its consent page (docs/oauth-applications.md): checks the
 * request, then shows the page (sign-in first when needed). A bad client or redirect URI is
 * shown on the page, never redirected to; other errors go back to the client.
 */
@ApiTags('OAuth applications')
@Controller()
export class ConsentPageController {
  constructor(
    private readonly client: ServiceClient,
    private readonly authenticator: GatewayAuthenticator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    registerErrorPage(CONSENT_ERROR_PAGE);
  }

  @Get('oauth2/authorize')
  @Public()
  @ChecksOwnQuery()
  @ApiOperation({
    summary: 'Authorization endpoint (authorization code with PKCE S256)',
    description:
      'Shows the consent page (HTML). `response_type=code`, `client_id`, `redirect_uri` (as registered), ' +
      '`code_challenge` with `code_challenge_method=S256` (required), `state`, `scope`, `resource` (RFC 8707).',
  })
  @ApiQuery({ name: 'client_id', required: true })
  @ApiQuery({ name: 'response_type', required: true })
  @ApiQuery({ name: 'code_challenge', required: true })
  @ApiQuery({ name: 'code_challenge_method', required: true })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The consent page, or a page explaining a bad client or redirect URI (400)' })
  @ApiFoundResponse({ description: 'Back to the client with an error (RFC 6749 §4.1.2.1)' })
  @ApiServiceUnavailableResponse({ description: 'The identity service is unavailable: a page saying so (HTML)' })
  async authorize(
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    try {
      // Text the platform refuses everywhere (a NUL character): refused here, as the page.
      const refused = checkParameters(query, request.url);
      if (refused) throw refused;
      await this.showAuthorization(query, request, reply);
    } catch (err) {
      // A person's browser is here: an outage is a page too, never a JSON body.
      if (reply.sent) throw err;
      await sendApprovalPageError(reply, request, err, this.logger, {
        title: 'Authorization failed',
        mode: 'authorize',
      });
    }
  }

  private async showAuthorization(
    query: Record<string, unknown>,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    // A parameter sent twice arrives as an array, one too long is not read: their values are not
    // passed on, their names are (the service refuses the request).
    const param = (name: AuthorizeParam) => {
      const value = query[name];
      return typeof value === 'string' && value.length <= AUTHORIZE_PARAM_MAX ? value : undefined;
    };
    const repeatedParams = AUTHORIZE_PARAMS.filter((name) => Array.isArray(query[name]));
    const oversizedParams = AUTHORIZE_PARAMS.filter((name) => {
      const value = query[name];
      return typeof value === 'string' && value.length > AUTHORIZE_PARAM_MAX;
    });
    // The request is bound to the session it is shown to: the caller of startAuthorization.
    const session = await pageSession(this.authenticator, request);
    if (session) attachCaller(request, session);
    const started = await this.client.call(OAuthApplicationsService.method.startAuthorization, {
      issuer: publicBase(this.config, request),
      responseType: param('response_type') ?? '',
      clientId: param('client_id') ?? '',
      redirectUri: param('redirect_uri'),
      scope: param('scope'),
      state: param('state'),
      codeChallenge: param('code_challenge'),
      codeChallengeMethod: param('code_challenge_method'),
      resource: param('resource'),
      repeatedParams,
      oversizedParams,
    });
    if (started.outcome === 'redirect') {
      await reply.status(302).header('location', started.redirectTo).header('cache-control', 'no-store').send();
      return;
    }
    if (started.outcome === 'error')
      return sendApprovalPage(reply, {
        title: 'Authorization failed',
        status: 400,
        data: { mode: 'authorize', signedIn: false, state: 'error', message: started.errorDescription },
      });
    const base = { mode: 'authorize' as const, agentName: started.applicationName, homepageUrl: started.homepageUrl };
    if (!session)
      return sendApprovalPage(reply, { title: 'Authorize an application', data: { ...base, signedIn: false } });
    await sendApprovalPage(reply, {
      title: 'Authorize an application',
      data: {
        ...base,
        signedIn: true,
        state: 'pending',
        email: session.user.email,
        audience: started.audience,
        decisionUrl: `/api/oauth2/authorizations/${started.authorizationId}/decision`,
        ...(await reviewExtras(this.client, started.scopes)),
      },
    });
  }

  @Post('api/oauth2/authorizations/:id/decision')
  @SessionOnly()
  @HttpCode(200)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Approve or deny an authorization request',
    description:
      'From the consent page (browser session, CSRF header), by the session the page was shown to. Answers where ' +
      'the browser goes: the redirect URI with `code` and `state`, or `error=access_denied`.',
  })
  @ApiOkResponse({ type: AuthorizationDecidedDto })
  @ApiNotFoundResponse({
    description: 'No such pending request, it expired, or it was shown to another browser session',
  })
  @ApiConflictResponse({ description: 'Already decided' })
  @ApiForbiddenResponse({
    description:
      'Not a browser session, or an approval whose chosen workspaces are none the person reaches ' +
      '(unreachable ones are dropped, as for a personal access token)',
  })
  async decide(
    @Param('id') id: string,
    @Body() body: AuthorizationDecisionDto,
    @Req() request: FastifyRequest,
  ): Promise<AuthorizationDecidedDto> {
    const { redirectTo } = await this.client.call(OAuthApplicationsService.method.decideAuthorization, {
      issuer: publicBase(this.config, request),
      authorizationId: id,
      approve: body.decision === 'approve',
      scopes: body.scopes ?? [],
      allWorkspaces: body.workspaceIds === undefined,
      workspaceIds: body.workspaceIds ?? [],
    });
    // The documented body only: the contract message carries protobuf's own fields ($typeName).
    return { redirectTo };
  }
}
