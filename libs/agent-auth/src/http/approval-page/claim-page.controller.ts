import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AgentAuthService } from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { attachCaller, GatewayAuthenticator, Public, registerErrorPage, SessionOnly } from '@kw/platform-http';
import { isUuid } from '@kw/platform-ids';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { ClaimDecidedDto, ClaimDecisionDto } from '../dto/agent-auth.dto.js';
import { CLAIM_ERROR_PAGE, sendApprovalPage, sendApprovalPageError } from './approval-page.js';
import { pageSession, reviewExtras } from './page-session.js';

/**
 * The claim page (docs/agent-authentication.md#the-claim-page): where the person named by an
 * agent's service_auth request signs in, reviews the access asked for and approves or denies.
 * The user code is rendered into this page only; the decision is a session-only JSON route.
 */
@ApiTags('Agent authentication')
@Controller()
export class ClaimPageController {
  constructor(
    private readonly client: ServiceClient,
    private readonly authenticator: GatewayAuthenticator,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    registerErrorPage(CLAIM_ERROR_PAGE);
  }

  @Get('agent/claim/:id')
  @Public()
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'The claim page (HTML)',
    description:
      'Sign in, review what the agent asks for, approve or deny. Unknown, withdrawn or expired claims answer 404 ' +
      'with a page saying so.',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page' })
  @ApiNotFoundResponse({ description: 'No such claim, or it was withdrawn or expired (HTML)' })
  async page(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      await this.show(id, request, reply);
    } catch (err) {
      // A person's browser is here: a missing claim or an outage is a page too, never a JSON body.
      if (reply.sent) throw err;
      await sendApprovalPageError(reply, request, err, this.logger, { title: 'Approve an agent', mode: 'claim' });
    }
  }

  private async show(id: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const session = await pageSession(this.authenticator, request);
    if (session) attachCaller(request, session);
    // Signed out too the claim is looked up first: an unknown, withdrawn or expired one is a
    // 404 page at once, not a sign-in form that leads to it (the answer then is only that the
    // claim exists: state "sign_in", nothing about it).
    const review = isUuid(id)
      ? await this.client.call(AgentAuthService.method.reviewClaim, { claimId: id }).catch((err: unknown) => {
          if (AppError.isAppError(err) && err.status === 404) return undefined;
          throw err;
        })
      : undefined;
    if (!review) return claimGone(reply, session !== undefined);
    if (!session)
      return sendApprovalPage(reply, { title: 'Approve an agent', data: { mode: 'claim', signedIn: false } });
    await sendApprovalPage(reply, {
      title: 'Approve an agent',
      userCode: review.state === 'pending' ? review.userCode : undefined,
      data: {
        mode: 'claim',
        signedIn: true,
        decisionUrl: `/api/agent-claims/${encodeURIComponent(id)}/decision`,
        email: session.user.email,
        state: review.state,
        agentName: review.agentName,
        loginHint: review.loginHint,
        ...(review.state === 'pending' ? await reviewExtras(this.client, review.requestedScopes) : {}),
      },
    });
  }

  @Post('api/agent-claims/:id/decision')
  @SessionOnly()
  @HttpCode(200)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: "Approve or deny an agent's claim",
    description:
      'From the claim page, signed in as the account the agent asked for: `userCode` is the code the page shows; ' +
      'approving needs `acceptTerms`, at least one of the requested scopes, and all or some workspaces.',
  })
  @ApiOkResponse({ type: ClaimDecidedDto })
  @ApiNotFoundResponse({ description: 'No such claim for this account, or it expired' })
  @ApiConflictResponse({ description: 'The page is out of date (code changed, window ended, already decided)' })
  @ApiForbiddenResponse({
    description:
      'Not a browser session, or an approval whose chosen workspaces are none the person reaches ' +
      '(unreachable ones are dropped, as for a personal access token)',
  })
  async decide(@Param('id') id: string, @Body() body: ClaimDecisionDto): Promise<ClaimDecidedDto> {
    const { status } = await this.client.call(AgentAuthService.method.decideClaim, {
      claimId: id,
      approve: body.decision === 'approve',
      userCode: body.userCode ?? '',
      acceptTerms: body.acceptTerms === true,
      scopes: body.scopes ?? [],
      allWorkspaces: body.workspaceIds === undefined,
      workspaceIds: body.workspaceIds ?? [],
    });
    // The documented body only: the contract message carries protobuf's own fields ($typeName).
    return { status };
  }
}

/** An unknown, withdrawn or expired claim: 404, and a page that says what to do. */
function claimGone(reply: FastifyReply, signedIn: boolean): Promise<void> {
  return sendApprovalPage(reply, {
    title: 'Approve an agent',
    status: 404,
    data: {
      mode: 'claim',
      signedIn,
      state: 'error',
      message:
        'This approval request no longer exists: the agent withdrew it, it expired, or the link is wrong. ' +
        'Ask the agent to start again.',
    },
  });
}
