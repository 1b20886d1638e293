import { Injectable } from '@nestjs/common';
import {
  AgentAuthService,
  type AddTrustedIssuerRequest,
  type DecideClaimRequest,
  type IssueTokenRequest,
  type ReceiveSecurityEventRequest,
  type RegisterAgentRequest,
  type RemoveTrustedIssuerRequest,
  type RenewClaimRequest,
  type ReviewClaimRequest,
  type RevokeAgentGrantRequest,
  type RevokeOAuthTokenRequest,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles } from '@kw/platform-transport';
import { AgentClaims } from './agent-auth/agent-claims.js';
import { AgentGrants } from './agent-auth/agent-grants.js';
import { RegisterAgent } from './agent-auth/register-agent.js';
import { SecurityEvents } from './agent-auth/security-events.js';
import { TokenEndpoint } from './agent-auth/token-endpoint.js';
import { shownKeys, TrustedIssuers, type TrustedIssuer } from './agent-auth/trusted-issuers.js';
import { CallerAccounts } from './caller-accounts.js';

/** AgentAuthService over the transport: each method hands over to its use case. */
@Injectable()
export class AgentAuthHandlers {
  constructor(
    private readonly registerAgentCase: RegisterAgent,
    private readonly claims: AgentClaims,
    private readonly tokenEndpoint: TokenEndpoint,
    private readonly securityEvents: SecurityEvents,
    private readonly grants: AgentGrants,
    private readonly issuers: TrustedIssuers,
    private readonly callers: CallerAccounts,
  ) {}

  @Handles(AgentAuthService.method.registerAgent)
  registerAgent(input: RegisterAgentRequest) {
    return this.registerAgentCase.execute(input);
  }

  @Handles(AgentAuthService.method.renewClaim)
  renewClaim(input: RenewClaimRequest) {
    return this.claims.renew({ claimToken: input.claimToken, email: input.email, base: input.issuer });
  }

  @Handles(AgentAuthService.method.issueToken)
  issueToken(input: IssueTokenRequest) {
    return this.tokenEndpoint.issue(input);
  }

  @Handles(AgentAuthService.method.revokeOAuthToken)
  async revokeOAuthToken(input: RevokeOAuthTokenRequest) {
    await this.tokenEndpoint.revoke(input);
    return {};
  }

  @Handles(AgentAuthService.method.receiveSecurityEvent)
  async receiveSecurityEvent(input: ReceiveSecurityEventRequest) {
    return { applied: await this.securityEvents.receive(input.set, input.issuer) };
  }

  @Handles(AgentAuthService.method.reviewClaim)
  reviewClaim(input: ReviewClaimRequest, context: RequestContext) {
    return this.claims.review(input.claimId, context);
  }

  @Handles(AgentAuthService.method.decideClaim)
  decideClaim(input: DecideClaimRequest, context: RequestContext) {
    return this.claims.decide(input, context);
  }

  @Handles(AgentAuthService.method.listAgentGrants)
  async listAgentGrants(_input: unknown, context: RequestContext) {
    return { grants: await this.grants.list(context) };
  }

  @Handles(AgentAuthService.method.revokeAgentGrant)
  async revokeAgentGrant(input: RevokeAgentGrantRequest, context: RequestContext) {
    await this.grants.revoke(input.id, context);
    return {};
  }

  @Handles(AgentAuthService.method.listTrustedIssuers)
  async listTrustedIssuers(_input: unknown, context: RequestContext) {
    await this.callers.require(context, 'admin');
    return { issuers: (await this.issuers.list()).map(toIssuerMessage) };
  }

  @Handles(AgentAuthService.method.addTrustedIssuer)
  async addTrustedIssuer(input: AddTrustedIssuerRequest, context: RequestContext) {
    await this.callers.require(context, 'admin');
    const issuer = await this.issuers.add({
      issuer: input.issuer,
      jwksUri: input.jwksUri,
      jwks: input.jwks,
      algorithms: input.algorithms,
      allowedClientIds: input.allowedClientIds,
    });
    return { issuer: toIssuerMessage(issuer) };
  }

  @Handles(AgentAuthService.method.removeTrustedIssuer)
  async removeTrustedIssuer(input: RemoveTrustedIssuerRequest, context: RequestContext) {
    await this.callers.require(context, 'admin');
    await this.issuers.remove(input.id);
    return {};
  }
}

function toIssuerMessage(issuer: TrustedIssuer) {
  return {
    id: issuer.id,
    issuer: issuer.issuer,
    jwksUri: issuer.jwksUri,
    jwks: issuer.jwks ? JSON.stringify(shownKeys(issuer.jwks)) : undefined,
    algorithms: issuer.algorithms,
    allowedClientIds: issuer.allowedClientIds,
    source: issuer.source,
  };
}
