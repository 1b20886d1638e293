import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  DecideClaimRequest,
  IssueTokenResponseSchema,
  RenewClaimResponseSchema,
  ReviewClaimResponseSchema,
} from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField, notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { APP_CONFIG } from '@kw/platform-runtime';
import { SLOW_DOWN_STEP_SECONDS } from '../../domain/agent-auth/oauth.js';
import { oauthError } from '../../domain/agent-auth/oauth-errors.js';
import { DEFAULT_AGENT_SCOPES } from '../../domain/agent-auth/agent-scopes.js';
import { CLAIM_TOKEN_PREFIX, generateToken, hashToken, secretPrefixOf } from '../../domain/tokens/token-format.js';
import { AgentClaimsRepository, type AgentClaimRow } from '../../persistence/agent-claims.repository.js';
import { CallerAccounts } from '../caller-accounts.js';
import { AgentTokenMinter } from './agent-token-minter.js';
import { ReachableWorkspaces } from '../tokens/reachable-workspaces.js';
import { UsersRepository } from '../../persistence/users.repository.js';
import { canonicalEmail } from '../../domain/accounts/email.js';

/** A claim's first answer (POST /agent/identity, service_auth). */
export interface StartedClaim {
  claimToken: string;
  claim: { verificationUri: string; expiresIn: number };
  expiresIn: number;
  interval: number;
}

// Letters people do not confuse (no vowels, so no words; RFC 8628 §6.1), eight of them: 20^8.
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

const seconds = (until: Date, now: Date) => Math.max(0, Math.ceil((until.getTime() - now.getTime()) / 1000));

/**
 * Service-assisted claims (docs/agent-authentication.md#service-assisted-claims): an agent asks
 * for access to the account named by `login_hint`; the person signs in on the claim page,
 * reviews what the agent asks and approves or denies; the agent polls the token endpoint
 * (RFC 8628 semantics) and gets tokens once. The answers never depend on whether the email has
 * an account. The user code appears only on the page: a new one per page view, only its hash
 * stored, and the decision must carry the one the page showed.
 */
@Injectable()
export class AgentClaims {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly claims: AgentClaimsRepository,
    private readonly minter: AgentTokenMinter,
    private readonly callers: CallerAccounts,
    private readonly reachable: ReachableWorkspaces,
    private readonly users: UsersRepository,
  ) {}

  async start(
    input: { loginHint: string; agentName: string; scopes?: string[]; base: string },
    now = new Date(),
  ): Promise<StartedClaim> {
    const secret = generateToken(CLAIM_TOKEN_PREFIX);
    const row = await this.claims.create({
      claimTokenHash: secret.tokenHash,
      loginHint: input.loginHint,
      agentName: input.agentName,
      requestedScopes: input.scopes ?? [...DEFAULT_AGENT_SCOPES],
      expiresAt: new Date(now.getTime() + this.config.AGENT_CLAIM_TTL_SECONDS * 1000),
      windowExpiresAt: this.windowEnd(now),
      intervalSeconds: this.config.AGENT_CLAIM_POLL_INTERVAL_SECONDS,
    });
    return {
      claimToken: secret.token,
      claim: {
        verificationUri: verificationUri(input.base, row.id),
        expiresIn: this.config.AGENT_CLAIM_WINDOW_SECONDS,
      },
      expiresIn: this.config.AGENT_CLAIM_TTL_SECONDS,
      interval: row.intervalSeconds,
    };
  }

  /** POST /agent/identity/claim: a new user-code window, while the claim token is valid. */
  async renew(
    input: { claimToken: string; email: string; base: string },
    now = new Date(),
  ): Promise<MessageInitShape<typeof RenewClaimResponseSchema>> {
    const claim = await this.byToken(input.claimToken, now);
    if (claim.loginHint !== canonicalEmail(input.email))
      throw oauthError('invalid_grant', 'The email is not the one this claim was made for');
    if (claim.status !== 'pending') throw oauthError('invalid_grant', 'The claim was already decided');
    const renewed = await this.claims.renewWindow(claim.id, this.windowEnd(now));
    return {
      claim: {
        verificationUri: verificationUri(input.base, claim.id),
        expiresIn: seconds(renewed.windowExpiresAt, now),
      },
      expiresIn: seconds(claim.expiresAt, now),
      interval: renewed.intervalSeconds,
    };
  }

  /** The agent withdraws its claim (revoking its claim token): it expires now, whatever its state before exchange. */
  async withdraw(claimToken: string, now = new Date()): Promise<void> {
    await this.claims.withdraw(hashToken(claimToken), now);
  }

  /** The claim grant of the token endpoint: RFC 8628 §3.5's answers, tokens once approved. */
  async poll(claimToken: string, now = new Date()): Promise<MessageInitShape<typeof IssueTokenResponseSchema>> {
    const claim = await this.byToken(claimToken, now);
    const polled = await this.claims.recordPoll(claim.id, now, SLOW_DOWN_STEP_SECONDS);
    if (!polled) throw oauthError('invalid_grant', 'Unknown claim token');
    if (polled.tooFast)
      throw oauthError('slow_down', `Polling too fast: wait ${polled.claim.intervalSeconds} seconds between requests`);
    switch (polled.claim.status) {
      case 'pending':
        throw oauthError('authorization_pending', 'The person has not approved the request yet');
      case 'denied':
        throw oauthError('access_denied', 'The person denied the request');
      case 'redeemed':
        throw oauthError('invalid_grant', 'The claim was already exchanged for tokens');
    }
    const approved = polled.claim;
    // As for an ID-JAG: no tokens for a disabled account. The claim stays approved, not
    // redeemed, so re-enabled within the claim token's lifetime the agent gets its tokens.
    if ((await this.users.findById(approved.userId!))?.status !== 'active')
      throw oauthError('invalid_grant', 'The account is disabled');
    const minted = this.minter.mint(now);
    const grant = await this.claims.redeem(
      approved.id,
      {
        userId: approved.userId!,
        method: 'service_auth',
        agentName: approved.agentName,
        issuer: null,
        subject: null,
        scopes: approved.scopes,
        allWorkspaces: approved.allWorkspaces,
        workspaceIds: approved.workspaceIds,
      },
      minted.stored,
    );
    if (!grant) throw oauthError('invalid_grant', 'The claim was already exchanged for tokens');
    return minted.answer(grant.scopes);
  }

  /** The claim page's view for the signed-in person; a fresh user code when it can be decided. */
  async review(
    claimId: string,
    context: RequestContext,
    now = new Date(),
  ): Promise<MessageInitShape<typeof ReviewClaimResponseSchema>> {
    // Signed out, the page asks for sign-in, but only for a claim that exists: an unknown,
    // withdrawn or expired one is 404 at once (the person would sign in only to learn that),
    // and nothing about the claim is told before the sign-in.
    if (!context.auth) {
      await this.pageClaim(claimId, now);
      return { state: 'sign_in' };
    }
    const { user } = await this.callers.requireActive(context);
    const claim = await this.pageClaim(claimId, now);
    const view = { agentName: claim.agentName, requestedScopes: claim.requestedScopes, loginHint: claim.loginHint };
    if (claim.status !== 'pending') return { ...view, state: 'decided' };
    if (claim.windowExpiresAt <= now) return { ...view, state: 'window_expired' };
    if (user.email !== claim.loginHint) return { ...view, state: 'wrong_account' };
    const userCode = Array.from(
      { length: USER_CODE_LENGTH },
      () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)],
    ).join('');
    await this.claims.setUserCode(claim.id, hashToken(userCode));
    return { ...view, state: 'pending', userCode, windowExpiresIn: seconds(claim.windowExpiresAt, now) };
  }

  /** Approve or deny, from the claim page (browser session): the page's user code, terms accepted to approve. */
  async decide(input: DecideClaimRequest, context: RequestContext, now = new Date()): Promise<{ status: string }> {
    const { user, auth } = await this.callers.requireActive(context);
    if (auth.credentialKind !== 'session')
      throw new AppError({
        status: 403,
        code: ErrorCode.FORBIDDEN,
        message: 'Claims are decided in the browser, signed in',
      });
    const claim = await this.pageClaim(input.claimId, now);
    if (user.email !== claim.loginHint) throw notFound('Claim');
    if (input.approve && !input.acceptTerms) throw invalidField('acceptTerms', 'the terms must be accepted to approve');
    const scopes = [...new Set(input.scopes)];
    if (input.approve && scopes.length === 0) throw invalidField('scopes', 'approve at least one scope');
    const beyond = scopes.filter((s) => !claim.requestedScopes.includes(s));
    if (beyond.length > 0) throw invalidField('scopes', `not requested by the agent: ${beyond.join(', ')}`);
    let workspaceIds = [...new Set(input.workspaceIds)];
    if (workspaceIds.some((id) => !isUuid(id))) throw invalidField('workspaceIds', 'must be workspace ids');
    if (input.approve && !input.allWorkspaces && workspaceIds.length === 0)
      throw invalidField('workspaceIds', 'choose at least one workspace, or all of them');
    // The personal access tokens' rule: workspaces the person does not reach are dropped, and
    // a grant that would reach none is refused (403).
    if (input.approve && !input.allWorkspaces) workspaceIds = await this.reachable.restrict(workspaceIds);
    const decided = await this.claims.decide(
      claim.id,
      hashToken(input.userCode),
      { userId: user.id, approve: input.approve, scopes, allWorkspaces: input.allWorkspaces, workspaceIds },
      now,
    );
    if (!decided)
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message: 'This page is out of date (the code changed, the window ended or the claim was decided): reload it',
      });
    return { status: input.approve ? 'approved' : 'denied' };
  }

  private windowEnd(now: Date): Date {
    return new Date(now.getTime() + this.config.AGENT_CLAIM_WINDOW_SECONDS * 1000);
  }

  /** A live claim by its token; expired_token past its lifetime (RFC 8628). */
  private async byToken(claimToken: string, now: Date): Promise<AgentClaimRow> {
    if (secretPrefixOf(claimToken) !== CLAIM_TOKEN_PREFIX) throw oauthError('invalid_grant', 'Unknown claim token');
    const claim = await this.claims.findByTokenHash(hashToken(claimToken));
    if (!claim) throw oauthError('invalid_grant', 'Unknown claim token');
    if (claim.expiresAt <= now) throw oauthError('expired_token', 'The claim token has expired; start again');
    return claim;
  }

  private async pageClaim(claimId: string, now: Date): Promise<AgentClaimRow> {
    const claim = isUuid(claimId) ? await this.claims.findById(claimId) : null;
    if (!claim || claim.expiresAt <= now) throw notFound('Claim');
    return claim;
  }
}

export function verificationUri(base: string, claimId: string): string {
  return `${base}/agent/claim/${claimId}`;
}
