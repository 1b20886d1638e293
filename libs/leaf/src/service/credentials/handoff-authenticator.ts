import { Injectable } from '@nestjs/common';
import { create } from '@bufbuild/protobuf';
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { AuthContextSchema, UserSchema } from '@kw/contracts';
import {
  GatewayAuthenticator,
  unauthenticated,
  type AuthenticatedCaller,
  type AuthenticatedSession,
} from '@kw/platform-http';
import { HandoffKeys } from '../keys/handoff-keys.js';
import { LeafStateRepository } from '../../persistence/leaf-state.repository.js';
import { isUuid } from '@kw/platform-ids';
import { RevokedHandoffs } from './revoked-handoffs.js';

/** The credential kind of a handoff token in the AuthContext. */
export const HANDOFF_CREDENTIAL = 'handoff';
/**
 * Roles a handoff token may carry (`kw_role`): the member roles of the Cloud, and `subscriber`
 * (a reader of a public workspace: read actions only, and the Cloud revokes its tokens when the
 * workspace becomes private).
 */
export const HANDOFF_ROLES: readonly string[] = ['owner', 'collaborator', 'contributor', 'viewer', 'subscriber'];
/** Seconds of clock difference with the Cloud tolerated on `exp`, `iat` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 5;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Tokens remembered as verified; past this, the oldest is forgotten first. */
export const VERIFIED_TOKENS_MAX = 10_000;

const NOT_A_HANDOFF = 'A Leaf accepts only handoff tokens: ask the Cloud for one (POST /api/workspaces/{id}/handoff)';

interface HandoffClaims extends JWTPayload {
  kw_ws?: unknown;
  kw_role?: unknown;
  kw_actions?: unknown;
  kw_cred?: unknown;
}

/** What a verified token was checked against: when any of it changes, the token is checked again. */
interface Verified {
  claims: HandoffClaims;
  keySet: JWTVerifyGetKey;
  issuer: string;
  audience: string;
}

/**
 * The Leaf's GatewayAuthenticator: a bearer must be a handoff token the Cloud signed (ES256,
 * a key of its JWKS), issued by the Cloud the Leaf enrolled with, for this zone's audience,
 * not expired, not revoked (the Cloud's list from the last heartbeat) and for a workspace
 * provisioned here. Sessions and personal access tokens are refused: the Leaf knows no
 * accounts. Every check is local (no call to the Cloud), except one JWKS fetch when a token
 * names a kid the cache lacks.
 *
 * A client sends the same token with every request of its few minutes, and the signature check
 * (ES256) was a fifth of a Leaf's CPU per read: a token whose signature and claims passed is
 * remembered until it expires, while the key set and the enrollment stay the same. Revocation
 * and the workspace's placement are checked on every request, remembered or not.
 */
@Injectable()
export class HandoffAuthenticator extends GatewayAuthenticator {
  constructor(
    private readonly keys: HandoffKeys,
    private readonly state: LeafStateRepository,
    private readonly revoked: RevokedHandoffs,
  ) {
    super();
  }

  private readonly verified = new Map<string, Verified>();

  async authenticateBearer(token: string): Promise<AuthenticatedCaller> {
    if (!JWT_SHAPE.test(token)) throw unauthenticated(NOT_A_HANDOFF);
    const enrollment = this.state.current();
    if (!enrollment) throw unauthenticated('This Leaf has not enrolled with its Cloud yet');
    if (enrollment.refusedAt)
      throw unauthenticated(
        'This Leaf serves no workspace: the Cloud no longer accepts it for its hosted zone (the zone was deleted, or another Leaf enrolled for it)',
      );
    const options: JWTVerifyOptions = {
      algorithms: ['ES256'],
      issuer: enrollment.issuer,
      audience: enrollment.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    };
    const claims = await this.verify(token, options);
    const workspaceId = claims.kw_ws;
    const role = claims.kw_role;
    const actions = claims.kw_actions;
    if (!isUuid(workspaceId) || typeof role !== 'string' || !HANDOFF_ROLES.includes(role)) {
      throw unauthenticated('The handoff token lacks its workspace or role');
    }
    if (!Array.isArray(actions) || !actions.every((a) => typeof a === 'string'))
      throw unauthenticated('The handoff token lacks its actions');
    if (!claims.sub || !claims.jti) throw unauthenticated('The handoff token lacks its subject or id');
    const credentialId = typeof claims.kw_cred === 'string' ? claims.kw_cred : undefined;
    if (this.revoked.match({ userId: claims.sub, workspaceId, credentialId, issuedAt: claims.iat! }))
      throw unauthenticated(
        "The handoff token was revoked (the caller's membership, role, account or credential changed): ask the Cloud for a new one",
      );
    if (!(await this.state.provisionedNow(workspaceId)))
      throw unauthenticated('The handoff token is for a workspace this Leaf does not serve');

    const auth = create(AuthContextSchema, {
      userId: claims.sub,
      credentialId: claims.jti,
      credentialKind: HANDOFF_CREDENTIAL,
      scopes: actions as string[],
      workspaceIds: [workspaceId],
      allWorkspaces: false,
      workspaceRole: role,
    });
    // The Leaf has no accounts: the user is known by id only, active since the Cloud just signed for it.
    return { auth, user: create(UserSchema, { id: claims.sub, status: 'active' }) };
  }

  authenticateSession(): Promise<AuthenticatedSession> {
    return Promise.reject(unauthenticated(`Browser sessions are not accepted here. ${NOT_A_HANDOFF}`));
  }

  private async verify(token: string, options: JWTVerifyOptions): Promise<HandoffClaims> {
    const remembered = this.verified.get(token);
    if (remembered) {
      const stillValid =
        remembered.keySet === this.keys.get() &&
        remembered.issuer === options.issuer &&
        remembered.audience === options.audience &&
        remembered.claims.exp! + CLOCK_TOLERANCE_SECONDS > Date.now() / 1000;
      if (stillValid) return remembered.claims;
      this.verified.delete(token);
    }
    const claims = await this.verifySignature(token, options);
    if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, {
      claims,
      keySet: this.keys.get(),
      issuer: options.issuer as string,
      audience: options.audience as string,
    });
    return claims;
  }

  private async verifySignature(token: string, options: JWTVerifyOptions): Promise<HandoffClaims> {
    try {
      try {
        return (await jwtVerify<HandoffClaims>(token, this.keys.get(), options)).payload;
      } catch (err) {
        // A kid the cache lacks: the Cloud may have rotated its key since the last fetch.
        if (!(err instanceof errors.JWKSNoMatchingKey) || !(await this.keys.refreshForUnknownKid())) throw err;
        return (await jwtVerify<HandoffClaims>(token, this.keys.get(), options)).payload;
      }
    } catch (err) {
      throw unauthenticated(refusal(err));
    }
  }
}

/** What the caller is told about a token jose refused (nothing about keys or internals). */
function refusal(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'The handoff token has expired: ask the Cloud for a new one';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'The handoff token is for another hosted zone';
    if (err.claim === 'iss') return 'The handoff token was not issued by the Cloud this Leaf is enrolled with';
    return `The handoff token's ${err.claim} claim is not valid`;
  }
  if (err instanceof errors.JWKSNoMatchingKey)
    return 'The handoff token was signed with a key the Cloud does not publish';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'The handoff token signature is not valid';
  return 'The handoff token is not valid';
}
