import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  DecideAuthorizationRequest,
  StartAuthorizationRequest,
  StartAuthorizationResponseSchema,
} from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField, notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { APP_CONFIG } from '@kw/platform-runtime';
import { AGENT_SCOPES } from '../../domain/agent-auth/agent-scopes.js';
import { AUTHORIZATION_REQUEST_TTL_SECONDS, AUTHORIZE_PARAM_MAX } from '../../domain/agent-auth/oauth.js';
import { isPkceValue } from '../../domain/agent-auth/pkce.js';
import { matchRedirectUri } from '../../domain/agent-auth/redirect-uris.js';
import { AUTHORIZATION_CODE_PREFIX, generateToken } from '../../domain/tokens/token-format.js';
import { OAuthApplicationsRepository } from '../../persistence/oauth-applications.repository.js';
import { OAuthAuthorizationsRepository } from '../../persistence/oauth-authorizations.repository.js';
import { CallerAccounts } from '../caller-accounts.js';
import { ReachableWorkspaces } from '../tokens/reachable-workspaces.js';

type StartAnswer = MessageInitShape<typeof StartAuthorizationResponseSchema>;

const STATE_MAX = 500;

/**
 * GET /oauth2/authorize and the consent decision (OAuth 2.1 authorization code with PKCE).
 * Problems with the client or its redirect URI are shown on the page and never redirect (an
 * attacker's URI must not receive anything); every other problem goes back to the client's
 * redirect URI as `error` with its `state`. PKCE S256 is required (`plain` is refused); a
 * `resource` (RFC 8707) must be a path of this server and binds the tokens to it.
 */
@Injectable()
export class Authorizations {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly applications: OAuthApplicationsRepository,
    private readonly authorizations: OAuthAuthorizationsRepository,
    private readonly callers: CallerAccounts,
    private readonly reachable: ReachableWorkspaces,
  ) {}

  /**
   * Checks the request; when a signed-in person is shown the review, stores it bound to that
   * account and browser session (only they may decide it). Signed out, nothing is stored: the
   * page asks for sign-in, and its reload starts the request again.
   */
  async start(input: StartAuthorizationRequest, context: RequestContext, now = new Date()): Promise<StartAnswer> {
    // RFC 6749 §3.1: no parameter twice. Without one client or one redirect URI, nothing can
    // safely be sent back: the page says so.
    const twice = (name: string) => `The parameter ${name} is sent more than once`;
    const tooLong = (name: string) => `The parameter ${name} is longer than ${AUTHORIZE_PARAM_MAX} characters`;
    const unsure = (names: string[]) => names.find((name) => name === 'client_id' || name === 'redirect_uri');
    const repeatedUnsure = unsure(input.repeatedParams);
    if (repeatedUnsure) return pageError('invalid_request', twice(repeatedUnsure));
    const oversizedUnsure = unsure(input.oversizedParams);
    if (oversizedUnsure) return pageError('invalid_request', tooLong(oversizedUnsure));
    const application = isUuid(input.clientId) ? await this.applications.findById(input.clientId) : null;
    if (!application || application.status !== 'active')
      return pageError('invalid_client', 'Unknown or disabled application (client_id)');
    const redirectUri =
      input.redirectUri === undefined
        ? application.redirectUris.length === 1
          ? application.redirectUris[0]
          : undefined
        : matchRedirectUri(application.redirectUris, input.redirectUri);
    if (!redirectUri)
      return pageError(
        'invalid_request',
        'The redirect_uri is not one the application registered; nothing was sent to it',
      );
    const state = input.state?.slice(0, STATE_MAX);
    const back = (error: string, description: string): StartAnswer => ({
      outcome: 'redirect',
      redirectTo: withParams(redirectUri, { error, error_description: description, state, iss: input.issuer }),
    });
    // Any other parameter twice goes back to the client (a repeated state is not sent: which one
    // is the client's cannot be known). Never one of the values: a repeated resource must not
    // become a token for the whole API.
    if (input.repeatedParams.length > 0) return back('invalid_request', twice(input.repeatedParams[0]));
    if (input.oversizedParams.length > 0) return back('invalid_request', tooLong(input.oversizedParams[0]));
    if (input.responseType !== 'code') return back('unsupported_response_type', 'response_type must be code');
    if (!input.codeChallenge) return back('invalid_request', 'PKCE is required: send code_challenge with S256');
    if (input.codeChallengeMethod !== 'S256')
      return back('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
    if (!isPkceValue(input.codeChallenge) || input.codeChallenge.length !== 43)
      return back('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
    const asked = input.scope?.trim() ? [...new Set(input.scope.trim().split(/\s+/))] : [...application.scopes];
    const refused = asked.filter((s) => !application.scopes.includes(s) || !AGENT_SCOPES.includes(s));
    if (refused.length > 0)
      return back('invalid_scope', `Scopes this application may not ask for: ${refused.join(' ')}`);
    let audience: string | null = null;
    if (input.resource !== undefined) {
      const path = audiencePath(input.resource, input.issuer);
      if (path === null) return back('invalid_target', 'resource must be a URL of this server');
      // The server itself as the resource: the whole API, no narrower audience.
      audience = path === '/' ? null : path;
    }
    const reviewer = await this.reviewer(context);
    const view = {
      outcome: 'consent',
      applicationName: application.name,
      homepageUrl: application.homepageUrl ?? undefined,
      scopes: asked,
      audience: audience ?? undefined,
    } as const;
    if (!reviewer) return view;
    const row = await this.authorizations.create({
      userId: reviewer.userId,
      sessionId: reviewer.sessionId,
      applicationId: application.id,
      redirectUri,
      codeChallenge: input.codeChallenge,
      state: state ?? null,
      requestedScopes: asked,
      audience,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_REQUEST_TTL_SECONDS * 1000),
    });
    return { ...view, authorizationId: row.id };
  }

  /** The signed-in person the consent page is shown to: an active account's browser session. */
  private async reviewer(context: RequestContext): Promise<{ userId: string; sessionId: string } | undefined> {
    if (context.auth?.credentialKind !== 'session') return undefined;
    const { user, auth } = await this.callers.requireActive(context);
    return { userId: user.id, sessionId: auth.credentialId };
  }

  /**
   * Approve or deny, signed in (browser session): where the browser goes next. The application
   * may have changed while its page was shown, so it is read again: a disabled or deleted one,
   * or a redirect URI no longer registered, gets nothing (not even a denial: the owner took
   * that address away), and approved scopes it may no longer ask for are dropped. Chosen
   * workspaces the person does not reach are dropped too (403 when none is left).
   */
  async decide(input: DecideAuthorizationRequest, context: RequestContext, now = new Date()) {
    const { user, auth } = await this.callers.requireActive(context);
    if (auth.credentialKind !== 'session')
      throw new AppError({
        status: 403,
        code: ErrorCode.FORBIDDEN,
        message: 'Authorizations are decided in the browser, signed in',
      });
    const authorization = isUuid(input.authorizationId)
      ? await this.authorizations.findById(input.authorizationId)
      : null;
    // Bound to the account and the browser session that were shown the review (as the claim
    // page binds its decision to a page view): any other session gets what an unknown request
    // gets, so a leaked request id cannot have a code issued for another account.
    if (
      !authorization ||
      authorization.expiresAt <= now ||
      authorization.userId !== user.id ||
      authorization.sessionId !== auth.credentialId
    )
      throw notFound('Authorization request');
    const chosen = [...new Set(input.scopes)];
    if (input.approve && chosen.length === 0) throw invalidField('scopes', 'approve at least one scope');
    const beyond = chosen.filter((s) => !authorization.requestedScopes.includes(s));
    if (beyond.length > 0) throw invalidField('scopes', `not requested by the application: ${beyond.join(', ')}`);
    const application = await this.applications.findById(authorization.applicationId);
    if (!application || application.status !== 'active')
      throw changed('The application was disabled or deleted since this page was shown; nothing was sent to it');
    if (!matchRedirectUri(application.redirectUris, authorization.redirectUri))
      throw changed('The application no longer uses this redirect URI; nothing was sent to it');
    const scopes = chosen.filter((s) => application.scopes.includes(s));
    if (input.approve && scopes.length === 0)
      throw changed('The application may no longer ask for any of the scopes you approved');
    let workspaceIds = [...new Set(input.workspaceIds)];
    if (workspaceIds.some((id) => !isUuid(id))) throw invalidField('workspaceIds', 'must be workspace ids');
    if (input.approve && !input.allWorkspaces && workspaceIds.length === 0)
      throw invalidField('workspaceIds', 'choose at least one workspace, or all of them');
    // The personal access tokens' rule: workspaces the person does not reach are dropped, and
    // a grant that would reach none is refused (403).
    if (input.approve && !input.allWorkspaces) workspaceIds = await this.reachable.restrict(workspaceIds);
    const code = input.approve ? generateToken(AUTHORIZATION_CODE_PREFIX) : undefined;
    const decided = await this.authorizations.decide(
      authorization.id,
      {
        sessionId: auth.credentialId,
        approve: input.approve,
        scopes,
        allWorkspaces: input.allWorkspaces,
        workspaceIds,
        codeHash: code?.tokenHash ?? null,
        codeExpiresAt: new Date(now.getTime() + this.config.OAUTH_CODE_TTL_SECONDS * 1000),
      },
      now,
    );
    if (!decided)
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message: 'This request was already decided or has expired',
      });
    const state = authorization.state ?? undefined;
    return {
      redirectTo: code
        ? withParams(authorization.redirectUri, { code: code.token, state, iss: input.issuer })
        : withParams(authorization.redirectUri, {
            error: 'access_denied',
            error_description: 'The user denied the request',
            state,
            iss: input.issuer,
          }),
    };
  }
}

/** The application changed between the consent page and the decision: 409, read it again. */
const changed = (message: string) => new AppError({ status: 409, code: ErrorCode.CONFLICT, message });

const pageError = (error: string, description: string): StartAnswer => ({
  outcome: 'error',
  error,
  errorDescription: description,
});

function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/** The path of `resource` when it is a URL of this server (`<base>/api/mcp` → `/api/mcp`), else null. */
export function audiencePath(resource: string, base: string): string | null {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.origin !== new URL(base).origin || url.search || url.hash) return null;
  const path = url.pathname.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}
