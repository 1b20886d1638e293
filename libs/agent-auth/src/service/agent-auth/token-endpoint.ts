import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { IssueTokenRequest, IssueTokenResponseSchema, RevokeOAuthTokenRequest } from '@kw/contracts';
import {
  GRANT_AUTHORIZATION_CODE,
  GRANT_CLAIM,
  GRANT_JWT_BEARER,
  GRANT_REFRESH,
} from '../../domain/agent-auth/oauth.js';
import { verifiesS256 } from '../../domain/agent-auth/pkce.js';
import { matchRedirectUri } from '../../domain/agent-auth/redirect-uris.js';
import { OAuthAuthorizationsRepository } from '../../persistence/oauth-authorizations.repository.js';
import { OAuthApplicationsRepository } from '../../persistence/oauth-applications.repository.js';
import { ClientAuthentication } from '../oauth/client-authentication.js';
import { audiencePath } from '../oauth/authorizations.js';
import { oauthError } from '../../domain/agent-auth/oauth-errors.js';
import { narrowScopes, parseAgentScope } from '../../domain/agent-auth/agent-scopes.js';
import {
  AGENT_ACCESS_PREFIX,
  AGENT_REFRESH_PREFIX,
  AUTHORIZATION_CODE_PREFIX,
  CLAIM_TOKEN_PREFIX,
  hashToken,
  secretPrefixOf,
} from '../../domain/tokens/token-format.js';
import { AgentGrantsRepository } from '../../persistence/agent-grants.repository.js';
import { CredentialChanges } from '../credentials/credential-changes.js';
import { AgentClaims } from './agent-claims.js';
import { AgentTokenMinter } from './agent-token-minter.js';
import { IdentityAssertions } from './identity-assertions.js';
import { TrustedIssuers } from './trusted-issuers.js';

type TokenAnswer = MessageInitShape<typeof IssueTokenResponseSchema>;

/**
 * POST /oauth2/token and /oauth2/revoke. Four grants: an application's authorization code with
 * PKCE, an ID-JAG (RFC 7523 jwt-bearer), the claim grant (RFC 8628 polling), and refresh_token
 * with rotation and reuse detection. Every grant answers a short-lived access token and a
 * refresh token of the same family (the grant).
 */
@Injectable()
export class TokenEndpoint {
  constructor(
    private readonly assertions: IdentityAssertions,
    private readonly claims: AgentClaims,
    private readonly grants: AgentGrantsRepository,
    private readonly minter: AgentTokenMinter,
    private readonly changes: CredentialChanges,
    private readonly clients: ClientAuthentication,
    private readonly authorizations: OAuthAuthorizationsRepository,
    private readonly applications: OAuthApplicationsRepository,
    private readonly issuers: TrustedIssuers,
  ) {}

  issue(input: IssueTokenRequest, now = new Date()): Promise<TokenAnswer> {
    switch (input.grantType) {
      case GRANT_JWT_BEARER:
        return this.clients.authenticateIfPresented(input, now).then(() => this.exchangeAssertion(input, now));
      case GRANT_CLAIM:
        if (!input.claimToken) throw oauthError('invalid_request', 'claim_token is required');
        return this.clients.authenticateIfPresented(input, now).then(() => this.claims.poll(input.claimToken!, now));
      case GRANT_REFRESH:
        return this.refresh(input, now);
      case GRANT_AUTHORIZATION_CODE:
        return this.exchangeCode(input, now);
      default:
        throw oauthError(
          input.grantType ? 'unsupported_grant_type' : 'invalid_request',
          input.grantType ? 'This grant type is not supported' : 'grant_type is required',
        );
    }
  }

  /**
   * RFC 7009: revoking a refresh token ends its grant; an access token ends alone; a claim token
   * withdraws its claim (an agent that gives up waiting for the person). Unknown tokens: no error.
   */
  async revoke(input: RevokeOAuthTokenRequest, now = new Date()): Promise<void> {
    if (!input.token) throw oauthError('invalid_request', 'token is required');
    const prefix = secretPrefixOf(input.token);
    if (prefix === CLAIM_TOKEN_PREFIX) return this.claims.withdraw(input.token, now);
    if (prefix !== AGENT_ACCESS_PREFIX && prefix !== AGENT_REFRESH_PREFIX) return;
    const token = await this.grants.revokeToken(hashToken(input.token), now);
    if (!token) return;
    if (token.kind === 'refresh') await this.grants.revokeGrant(token.grantId, 'refresh token revoked', now);
    await this.changes.tokensChanged(token.grantId);
  }

  private async exchangeAssertion(input: IssueTokenRequest, now: Date): Promise<TokenAnswer> {
    const bound = await this.assertions.bind(input.assertion ?? '', input.issuer, now);
    const scopes = narrowScopes(bound.scopes, parseAgentScope(input.scope));
    const minted = this.minter.mint(now);
    // Stored only if the provider is still trusted and has not revoked the assertion's account or
    // subject since: a removal or a security event racing this exchange leaves no live grant.
    const stored = await this.grants.createVouchedWithTokens(
      {
        userId: bound.user.id,
        method: 'identity_assertion',
        agentName: bound.clientId,
        issuer: bound.issuer.issuer,
        subject: bound.subject,
        scopes,
        allWorkspaces: true,
        workspaceIds: [],
      },
      { stored: bound.issuer.source === 'admin', issuedAt: bound.issuedAt },
      minted.stored,
    );
    if ('refused' in stored)
      throw oauthError(
        'invalid_grant',
        stored.refused === 'untrusted'
          ? 'The issuer is not trusted'
          : 'The identity provider revoked this assertion (a security event since it was issued)',
      );
    return minted.answer(scopes);
  }

  /**
   * OAuth 2.1 §4.1.3: the client authenticates (or names itself, if public), the code must be
   * its own, unexpired and unused, the redirect URI the one of the request, the PKCE verifier
   * must match, and a `resource` the one approved. A code used twice revokes what it issued.
   * The application as it is now decides too (it may have changed since the consent): the
   * redirect URI must still be registered, and approved scopes it may no longer ask for are
   * not issued (an active client is already required by its authentication).
   */
  private async exchangeCode(input: IssueTokenRequest, now: Date): Promise<TokenAnswer> {
    const application = await this.clients.authenticate(input, now);
    const code = input.code ?? '';
    if (!code) throw oauthError('invalid_request', 'code is required');
    if (!input.codeVerifier) throw oauthError('invalid_request', 'code_verifier is required (PKCE)');
    if (secretPrefixOf(code) !== AUTHORIZATION_CODE_PREFIX)
      throw oauthError('invalid_grant', 'Unknown authorization code');
    const minted = this.minter.mint(now);
    const outcome = await this.authorizations.redeem(
      hashToken(code),
      now,
      (authorization, account) => {
        if (authorization.applicationId !== application.id)
          throw oauthError('invalid_grant', 'The code was issued to another client');
        if (input.redirectUri !== authorization.redirectUri)
          throw oauthError(
            'invalid_grant',
            input.redirectUri
              ? 'redirect_uri differs from the authorization request'
              : 'redirect_uri is required: the one of the authorization request',
          );
        if (!matchRedirectUri(application.redirectUris, authorization.redirectUri))
          throw oauthError('invalid_grant', 'The application no longer uses this redirect_uri');
        const scopes = authorization.scopes.filter((s) => application.scopes.includes(s));
        if (scopes.length === 0)
          throw oauthError('invalid_grant', 'The application may no longer ask for any of the approved scopes');
        if (!verifiesS256(input.codeVerifier!, authorization.codeChallenge))
          throw oauthError('invalid_grant', 'The PKCE code_verifier does not match');
        assertApprovedResource(input, authorization.audience);
        // As for an ID-JAG; the code stays unspent, so re-enabled within its lifetime it still works.
        if (!account.active) throw oauthError('invalid_grant', 'The account is disabled');
        return {
          userId: authorization.userId!,
          method: 'authorization_code',
          agentName: application.name,
          issuer: null,
          subject: null,
          scopes,
          allWorkspaces: authorization.allWorkspaces,
          workspaceIds: authorization.workspaceIds,
          applicationId: application.id,
          audience: authorization.audience,
        };
      },
      minted.stored,
    );
    if (outcome.kind === 'replayed') {
      if (outcome.grantId) await this.changes.tokensChanged(outcome.grantId);
      throw oauthError('invalid_grant', 'The authorization code was used before; the tokens it issued are revoked');
    }
    if (outcome.kind === 'invalid') throw oauthError('invalid_grant', 'The authorization code is invalid or expired');
    await this.applications.touch(application.id, now);
    return minted.answer(outcome.grant.scopes);
  }

  /**
   * A grant an identity provider's assertion made lives only while that provider is trusted:
   * removing an added issuer revokes its grants, but one dropped from AGENT_TRUSTED_ISSUERS
   * (a restart) is found here, and its grant revoked then.
   */
  private async refuseUntrustedIssuer(refreshHash: string, now: Date): Promise<void> {
    const grant = await this.grants.grantOfRefreshToken(refreshHash);
    if (!grant?.issuer || grant.revokedAt || (await this.issuers.find(grant.issuer))) return;
    if (await this.grants.revokeGrant(grant.id, 'identity provider no longer trusted', now))
      await this.changes.tokensChanged(grant.id);
    throw oauthError('invalid_grant', 'The identity provider that vouched for this grant is no longer trusted');
  }

  private async refresh(input: IssueTokenRequest, now: Date): Promise<TokenAnswer> {
    const token = input.refreshToken ?? '';
    if (!token) throw oauthError('invalid_request', 'refresh_token is required');
    if (secretPrefixOf(token) !== AGENT_REFRESH_PREFIX) throw oauthError('invalid_grant', 'Unknown refresh token');
    // An application named in the request must authenticate; a grant of an application needs it.
    const client = await this.clients.authenticateIfApplication(input, now);
    await this.refuseUntrustedIssuer(hashToken(token), now);
    const minted = this.minter.mint(now);
    const requested = parseAgentScope(input.scope);
    // RFC 6749 §6: `scope` may narrow the new access token to a subset of the grant (more is
    // invalid_scope); the grant, and so the new refresh token, keeps all of its scopes.
    const outcome = await this.grants.rotate(hashToken(token), minted.stored, now, (grant, account) => {
      if ((grant.applicationId ?? undefined) !== client?.id)
        throw oauthError(
          'invalid_grant',
          grant.applicationId && !client
            ? 'The refresh token was issued to a client: send its client_id (and secret, if it has one)'
            : 'The refresh token was issued to another client',
        );
      // RFC 8707 §2.2: a refresh cannot move the grant to another resource (its tokens stay
      // bound to the approved one), so naming another is refused, and the token stays unspent.
      assertApprovedResource(input, grant.audience);
      // Refused while the account is disabled, as an ID-JAG is; the refresh token stays unspent
      // and the grant live, so they work again once the account is enabled again.
      if (!account.active) throw oauthError('invalid_grant', 'The account is disabled');
      // An application's grant mints only what the application may still ask for, as its code
      // exchange does: its owner may have narrowed its scopes since. Nothing left is
      // invalid_grant; the token stays unspent and the grant kept (the owner may give a scope
      // back, as re-enabling a disabled application brings its grants back).
      const held = client ? grant.scopes.filter((s) => client.scopes.includes(s)) : grant.scopes;
      if (held.length === 0)
        throw oauthError('invalid_grant', 'The application may no longer ask for any of the scopes of this grant');
      return narrowScopes(held, requested);
    });
    if (outcome.kind === 'reused') {
      await this.changes.tokensChanged(outcome.grantId);
      throw oauthError('invalid_grant', 'This refresh token was used before; every token of its grant is revoked');
    }
    if (outcome.kind === 'invalid')
      throw oauthError('invalid_grant', 'The refresh token is invalid, expired or revoked');
    return minted.answer(outcome.accessScopes);
  }
}

/** RFC 8707: a `resource` sent with a token request must be the one the grant was approved for; invalid_target otherwise. */
function assertApprovedResource(input: IssueTokenRequest, approved: string | null): void {
  if (input.resource === undefined) return;
  const path = audiencePath(input.resource, input.issuer);
  // The server itself (`<base>`) is the whole API: no audience.
  if ((path === '/' ? null : path) !== approved)
    throw oauthError('invalid_target', 'resource differs from the one approved for this grant');
}
