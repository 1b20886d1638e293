import { Injectable } from '@nestjs/common';
import type { JWTPayload } from 'jose';
import { ID_JAG_TYP } from '../../domain/agent-auth/oauth.js';
import { oauthError } from '../../domain/agent-auth/oauth-errors.js';
import { DEFAULT_AGENT_SCOPES, parseAgentScope } from '../../domain/agent-auth/agent-scopes.js';
import { UsersRepository } from '../../persistence/users.repository.js';
import type { UserRow } from '../../persistence/rows.js';
import { JwtRefused, SignedJwtVerifier } from './signed-jwt-verifier.js';
import type { TrustedIssuer } from './trusted-issuers.js';
import { canonicalEmail } from '../../domain/accounts/email.js';

/** An ID-JAG that passed every check, bound to the account of its verified email. */
export interface BoundAssertion {
  user: UserRow;
  issuer: TrustedIssuer;
  subject: string;
  /** The agent: the ID-JAG's client_id. */
  clientId: string;
  scopes: string[];
  /** Its `iat` (required by the verifier). */
  issuedAt: Date;
}

/**
 * Identity assertions (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant): a JWT a
 * trusted identity provider issued for this server (`aud`) about its user (`sub`, a verified
 * `email`) and the agent acting for them (`client_id`). It binds to the existing account with
 * that email; there is no just-in-time account. Each ID-JAG is single-use (`jti`).
 */
@Injectable()
export class IdentityAssertions {
  constructor(
    private readonly verifier: SignedJwtVerifier,
    private readonly users: UsersRepository,
  ) {}

  async bind(assertion: string, audience: string, now = new Date()): Promise<BoundAssertion> {
    if (!assertion) throw oauthError('invalid_request', 'assertion is required');
    let issuer: TrustedIssuer;
    let payload: JWTPayload;
    try {
      ({ issuer, payload } = await this.verifier.verify(
        assertion,
        { typ: ID_JAG_TYP, audience, kind: 'assertion' },
        now,
      ));
    } catch (err) {
      if (err instanceof JwtRefused) throw oauthError('invalid_grant', err.message);
      throw err;
    }
    const subject = stringClaim(payload, 'sub');
    const clientId = stringClaim(payload, 'client_id');
    if (issuer.allowedClientIds.length > 0 && !issuer.allowedClientIds.includes(clientId))
      throw oauthError('invalid_grant', 'This client is not allowed by its identity provider settings');
    const email = typeof payload.email === 'string' ? canonicalEmail(payload.email) : '';
    if (!email) throw oauthError('invalid_grant', 'The assertion carries no email');
    if (payload.email_verified !== true) throw oauthError('invalid_grant', 'The email is not verified by the issuer');
    const user = await this.users.findByEmail(email);
    if (!user) throw oauthError('invalid_grant', 'No account has this email; accounts are not created from assertions');
    if (user.status !== 'active') throw oauthError('invalid_grant', 'The account is disabled');
    const scopes = parseAgentScope(typeof payload.scope === 'string' ? payload.scope : undefined) ?? [
      ...DEFAULT_AGENT_SCOPES,
    ];
    return { user, issuer, subject, clientId, scopes, issuedAt: new Date(payload.iat! * 1000) };
  }
}

function stringClaim(payload: JWTPayload, name: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > 255)
    throw oauthError('invalid_grant', `The ${name} claim must be a non-empty string`);
  return value;
}
