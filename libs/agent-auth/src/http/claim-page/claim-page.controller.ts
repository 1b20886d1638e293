import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiExcludeEndpoint,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AgentAuthService, WorkspacesService } from '@kw/contracts';
import { ACTION_DEFINITIONS } from '@kw/platform-access-policy';
import { AppError } from '@kw/platform-errors';
import {
  attachCaller,
  GatewayAuthenticator,
  parseCookies,
  Public,
  SESSION_COOKIE,
  SessionOnly,
} from '@kw/platform-http';
import { isUuid } from '@kw/platform-ids';
import { ServiceClient } from '@kw/platform-transport';
import { ClaimDecidedDto, ClaimDecisionDto } from '../dto/agent-auth.dto.js';

/** JSON inside a <script> element: nothing in it can close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}.code{font:700 1.6rem/1 ui-monospace,monospace;letter-spacing:.2em;padding:.5rem 1rem;border:2px solid #444;display:inline-block;margin:.5rem 0}
fieldset{border:1px solid #ccc;margin:1rem 0;padding:.5rem 1rem}label{display:block;margin:.25rem 0}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}.error{color:#a00}.hidden{display:none}input[type=email],input[type=password]{width:100%;padding:.3rem}`;

/**
 * The claim page (docs/agent-authentication.md#the-claim-page): where the person named by an
 * agent's service_auth request signs in, reviews the access asked for and approves or denies.
 * The user code is rendered into this page only; the decision is a session-only JSON route.
 */
@ApiTags('Agent authentication')
@Controller()
export class ClaimPageController {
  private script?: { body: string; etag: string };

  constructor(
    private readonly client: ServiceClient,
    private readonly authenticator: GatewayAuthenticator,
  ) {}

  @Get('agent/claim/:id')
  @Public()
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'The claim page (HTML)',
    description: 'Sign in, review what the agent asks for, approve or deny. Unknown or expired claims answer 404.',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page' })
  @ApiNotFoundResponse({ description: 'No such claim, or it expired' })
  async page(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.session(request);
    let data: Record<string, unknown> = { claimId: id, signedIn: false };
    let userCode = '';
    if (session) {
      attachCaller(request, session);
      const review = await this.client.call(AgentAuthService.method.reviewClaim, { claimId: id });
      userCode = review.userCode;
      const workspaces =
        review.state === 'pending'
          ? (await this.client.call(WorkspacesService.method.listMyWorkspaces, {})).workspaces.map((w) => ({
              id: w.id,
              name: w.name,
            }))
          : [];
      data = {
        claimId: id,
        signedIn: true,
        email: session.user.email,
        state: review.state,
        agentName: review.agentName,
        loginHint: review.loginHint,
        windowExpiresIn: review.windowExpiresIn,
        scopes: review.requestedScopes.map((s) => ({
          name: s,
          description: ACTION_DEFINITIONS[s as keyof typeof ACTION_DEFINITIONS]?.description ?? s,
        })),
        workspaces,
      };
    } else if (!isUuid(id)) {
      throw new AppError({ status: 404, code: 'NOT_FOUND', message: 'Claim not found' });
    }
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Approve an agent</title>
<link rel="stylesheet" href="/agent/claim-page.css">
</head>
<body>
<main id="app">
<h1>Approve an agent</h1>
<section id="sign-in" class="hidden">
<p>Sign in to review what <span data-agent-name></span> asks for.</p>
<form id="sign-in-form"><label>Email <input type="email" id="email" autocomplete="username" required></label>
<label>Password <input type="password" id="password" autocomplete="current-password" required></label>
<button type="submit" id="sign-in-button">Sign in</button></form>
<p id="sign-in-error" class="error" role="alert"></p>
</section>
<section id="review" class="hidden">
<p><strong data-agent-name></strong> asks to act for <strong id="account"></strong>.</p>
<p>Check that this code is the one shown on this page only, then decide:</p>
<p class="code" id="user-code">${escapeHtml(userCode)}</p>
<fieldset><legend>Access</legend><div id="scopes"></div></fieldset>
<fieldset><legend>Workspaces</legend>
<label><input type="radio" name="reach" value="all" id="reach-all" checked> Every workspace I can reach</label>
<label><input type="radio" name="reach" value="some" id="reach-some"> Only these:</label><div id="workspaces"></div></fieldset>
<label><input type="checkbox" id="terms"> I accept the terms of use and let this agent act for me as shown</label>
<p><button type="button" id="approve">Approve</button><button type="button" id="deny">Deny</button></p>
<p id="decision-error" class="error" role="alert"></p>
</section>
<section id="message" class="hidden"><p id="message-text" role="status"></p></section>
</main>
<script type="application/json" id="kw-claim">${scriptJson(data)}</script>
<script type="module" src="/agent/claim-page.js?v=${encodeURIComponent(this.asset().etag.replace(/"/g, ''))}"></script>
</body>
</html>`;
    await reply
      .status(200)
      .header('content-security-policy', PAGE_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(html);
  }

  @Get('agent/claim-page.js')
  @Public()
  @ApiExcludeEndpoint()
  scriptAsset(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const asset = this.asset();
    void reply
      .header('etag', asset.etag)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === asset.etag) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).type('text/javascript; charset=utf-8').send(asset.body);
  }

  @Get('agent/claim-page.css')
  @Public()
  @ApiExcludeEndpoint()
  style(@Res() reply: FastifyReply): void {
    void reply
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .status(200)
      .type('text/css; charset=utf-8')
      .send(STYLE);
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
  async decide(@Param('id') id: string, @Body() body: ClaimDecisionDto): Promise<ClaimDecidedDto> {
    const approve = body.decision === 'approve';
    return this.client.call(AgentAuthService.method.decideClaim, {
      claimId: id,
      approve,
      userCode: body.userCode,
      acceptTerms: body.acceptTerms === true,
      scopes: body.scopes ?? [],
      allWorkspaces: body.workspaceIds === undefined,
      workspaceIds: body.workspaceIds ?? [],
    });
  }

  /** The signed-in person, if the browser sends a live session; the page works signed out too. */
  private async session(request: FastifyRequest) {
    const token = parseCookies(request.headers.cookie)[SESSION_COOKIE];
    if (!token) return undefined;
    return this.authenticator.authenticateSession(token, request.ip).catch(() => undefined);
  }

  private asset(): { body: string; etag: string } {
    if (!this.script) {
      const body = readFileSync(new URL('./browser/claim-page.js', import.meta.url), 'utf8').replace(
        /\n\/\/# sourceMappingURL=.*$/m,
        '\n',
      );
      this.script = { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"` };
    }
    return this.script;
  }
}
