import { Injectable } from '@nestjs/common';
import type { JWTPayload } from 'jose';
import { EVENT_TYPES, SET_TYP } from '../../domain/agent-auth/oauth.js';
import { setError, type SetErrorCode } from '../../domain/agent-auth/oauth-errors.js';
import { AgentGrantsRepository } from '../../persistence/agent-grants.repository.js';
import { SeenJwtIdsRepository } from '../../persistence/seen-jwt-ids.repository.js';
import { SessionsRepository } from '../../persistence/sessions.repository.js';
import { UsersRepository } from '../../persistence/users.repository.js';
import { CredentialChanges } from '../credentials/credential-changes.js';
import { JwtRefused, SignedJwtVerifier, type JwtRefusal } from './signed-jwt-verifier.js';
import { canonicalEmail } from '../../domain/accounts/email.js';

const SET_ERRORS: Record<JwtRefusal, SetErrorCode> = {
  malformed: 'invalid_request',
  wrong_type: 'invalid_request',
  bad_claims: 'invalid_request',
  replayed: 'invalid_request',
  unknown_issuer: 'invalid_issuer',
  bad_key: 'invalid_key',
  bad_signature: 'authentication_failed',
  wrong_audience: 'invalid_audience',
};

/** Who an event is about: an account (by email), or an identity provider's subject. */
type Subject = { email: string } | { issuer: string; subject: string };

/**
 * Inbound Security Event Tokens (RFC 8417, pushed as RFC 8935 says) from trusted identity
 * providers. Each known event type has one effect, applied before the 202
 * (docs/agent-authentication.md#security-events); unknown types are accepted and ignored.
 * A failure on our side forgets the jti, so the provider's retry is not taken for a replay. A
 * SET delivered again after it was applied (the provider retries after a 504 whose work was
 * done) is answered 202 again and changes nothing: its effects are not repeated, so an account
 * an administrator re-enabled meanwhile stays enabled.
 */
@Injectable()
export class SecurityEvents {
  constructor(
    private readonly verifier: SignedJwtVerifier,
    private readonly grants: AgentGrantsRepository,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly seen: SeenJwtIdsRepository,
    private readonly changes: CredentialChanges,
  ) {}

  async receive(set: string, audience: string, now = new Date()): Promise<string[]> {
    let issuer: string;
    let payload: JWTPayload;
    try {
      const verified = await this.verifier.verify(set, { typ: SET_TYP, audience, kind: 'event' }, now);
      issuer = verified.issuer.issuer;
      payload = verified.payload;
    } catch (err) {
      if (err instanceof JwtRefused && err.replayOf && (await this.wasApplied(err.replayOf))) return [];
      if (err instanceof JwtRefused) throw setError(SET_ERRORS[err.reason], err.message);
      throw err;
    }
    const events = payload.events;
    if (!events || typeof events !== 'object' || Array.isArray(events) || Object.keys(events).length === 0)
      throw setError('invalid_request', 'The SET has no events claim');
    try {
      const applied: string[] = [];
      for (const [type, event] of Object.entries(events as Record<string, unknown>)) {
        if (!(Object.values(EVENT_TYPES) as string[]).includes(type)) continue;
        const subject = subjectOf(payload, event, issuer);
        // The provider's clock: its assertions issued until the event are revoked with it.
        await this.apply(type, subject, issuer, now, new Date(payload.iat! * 1000));
        applied.push(type);
      }
      await this.seen.markApplied(issuer, 'event', payload.jti!, now);
      return applied;
    } catch (err) {
      await this.seen.forget(issuer, 'event', payload.jti!);
      throw err;
    }
  }

  /**
   * A replayed jti is answered 202 only once its first delivery was applied completely; one
   * still being applied (or cut short by a crash) stays refused as a replay.
   */
  private wasApplied(replay: { issuer: string; jti: string }): Promise<boolean> {
    return this.seen.wasApplied(replay.issuer, 'event', replay.jti);
  }

  private async apply(type: string, subject: Subject, issuer: string, now: Date, issuedAt: Date): Promise<void> {
    const userId = 'email' in subject ? (await this.users.findByEmail(subject.email))?.id : undefined;
    const reason = `security event ${type.slice(type.lastIndexOf('/') + 1)} from ${issuer}`;
    switch (type) {
      case EVENT_TYPES.sessionRevoked:
      case EVENT_TYPES.credentialChange:
      case EVENT_TYPES.identifierChanged: {
        // What this provider's assertions granted ends, and its assertions issued until the event
        // (one being exchanged meanwhile included) make no grant any more; other grants of the
        // account stay.
        const revoked =
          'email' in subject
            ? userId
              ? await this.grants.revokeIssuerGrantsOfUser(userId, issuer, reason, now, issuedAt)
              : []
            : await this.grants.revokeSubjectGrants(subject.issuer, subject.subject, reason, now, issuedAt);
        if (revoked.length > 0) await this.changes.tokensChanged(...revoked);
        return;
      }
      case EVENT_TYPES.credentialChangeRequired:
      case EVENT_TYPES.accountDisabled:
      case EVENT_TYPES.accountPurged: {
        const account =
          userId ?? ('issuer' in subject ? await this.grants.userOfSubject(subject.issuer, subject.subject) : null);
        if (!account) return;
        await this.grants.revokeUserGrants(account, reason, now);
        // This provider's assertions about the account issued until the event make no grant any
        // more either (an account left enabled, credential-change-required, would take them).
        await this.grants.revokeIssuerGrantsOfUser(account, issuer, reason, now, issuedAt);
        await this.sessions.revokeAllOfUser(account, now);
        // The platform never deletes an account on a provider's word: purged means disabled here.
        // The last active platform administrator stays enabled (its sessions and grants are
        // revoked all the same): no one could re-enable an account after that.
        if (type !== EVENT_TYPES.credentialChangeRequired) await this.users.setStatus(account, 'disabled');
        // Also the hosted zones' Leaves: they refuse the account's handoff tokens from now on.
        await this.changes.accountRevoked(account);
        return;
      }
    }
  }
}

/**
 * The event's subject: `sub_id` (RFC 9493) at the top level, or the older per-event `subject`;
 * formats `email` and `iss_sub` (only for this issuer's own subjects).
 */
function subjectOf(payload: JWTPayload, event: unknown, issuer: string): Subject {
  const raw = (payload.sub_id ?? (event as { subject?: unknown } | null)?.subject) as
    Record<string, unknown> | undefined;
  if (raw?.format === 'email' && typeof raw.email === 'string' && raw.email)
    return { email: canonicalEmail(raw.email) };
  if (raw?.format === 'iss_sub' && typeof raw.sub === 'string' && raw.sub) {
    if (raw.iss !== issuer) throw setError('invalid_request', 'An issuer may only speak for its own subjects');
    return { issuer, subject: raw.sub };
  }
  throw setError('invalid_request', 'The subject must be in the email or iss_sub format');
}
