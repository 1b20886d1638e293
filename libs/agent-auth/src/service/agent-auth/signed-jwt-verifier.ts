import { Injectable } from '@nestjs/common';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { CLOCK_SKEW_SECONDS, MAX_JWT_AGE_SECONDS } from '../../domain/agent-auth/oauth.js';
import { SeenJwtIdsRepository } from '../../persistence/seen-jwt-ids.repository.js';
import { TrustedIssuers, type TrustedIssuer } from './trusted-issuers.js';

/** Why a JWT was refused; each caller maps these to its protocol's error codes. */
export type JwtRefusal =
  | 'malformed'
  | 'wrong_type'
  | 'unknown_issuer'
  | 'bad_key'
  | 'bad_signature'
  | 'wrong_audience'
  | 'bad_claims'
  | 'replayed';

export class JwtRefused extends Error {
  constructor(
    readonly reason: JwtRefusal,
    message: string,
    /** A replay's issuer and jti (its signature and claims verified): what its first delivery did can be looked up. */
    readonly replayOf?: { issuer: string; jti: string },
  ) {
    super(message);
  }
}

export interface VerifiedJwt {
  issuer: TrustedIssuer;
  payload: JWTPayload;
}

export interface JwtExpectations {
  /** The `typ` header it must carry (compared case-insensitively, `application/` prefix allowed, RFC 7515). */
  typ: string;
  /** This server's issuer identifier: the `aud` it must name. */
  audience: string;
  /** Where its jti is remembered. */
  kind: 'assertion' | 'event';
}

/**
 * Verifies a JWT signed by a trusted identity provider: the issuer (read from the unverified
 * payload only to pick the keys) must be trusted; the signature must verify with one of its
 * keys and an allowed asymmetric algorithm; `typ`, `aud`, `exp`, `iat` (not older than an hour)
 * and `nbf` must hold with a minute of clock skew; the `jti` must never have been accepted
 * before (it is remembered for as long as the JWT would be accepted).
 *
 * `exp` is required of ID-JAGs only. Security Event Tokens need not carry it (RFC 8417's own
 * examples do not): their age is bounded by `iat` alone (the same hour), which is also how
 * long their `jti` is remembered, so a replay is caught for as long as it could be accepted.
 */
@Injectable()
export class SignedJwtVerifier {
  constructor(
    private readonly issuers: TrustedIssuers,
    private readonly seen: SeenJwtIdsRepository,
  ) {}

  async verify(jwt: string, expected: JwtExpectations, now = new Date()): Promise<VerifiedJwt> {
    let unverifiedIssuer: unknown;
    let typ: unknown;
    try {
      unverifiedIssuer = decodeJwt(jwt).iss;
      typ = decodeProtectedHeader(jwt).typ;
    } catch {
      throw new JwtRefused('malformed', 'The JWT cannot be decoded');
    }
    if (typeof typ !== 'string' || typ.toLowerCase().replace(/^application\//, '') !== expected.typ)
      throw new JwtRefused('wrong_type', `The JWT must have typ ${expected.typ}`);
    const issuer = typeof unverifiedIssuer === 'string' ? await this.issuers.find(unverifiedIssuer) : undefined;
    if (!issuer) throw new JwtRefused('unknown_issuer', 'The issuer is not trusted');

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(jwt, this.issuers.keysOf(issuer), {
        algorithms: issuer.algorithms,
        issuer: issuer.issuer,
        clockTolerance: CLOCK_SKEW_SECONDS,
        maxTokenAge: MAX_JWT_AGE_SECONDS + CLOCK_SKEW_SECONDS,
        requiredClaims: expected.kind === 'assertion' ? ['exp', 'iat', 'jti'] : ['iat', 'jti'],
        currentDate: now,
      }));
    } catch (err) {
      throw refusalOf(err);
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.includes(expected.audience))
      throw new JwtRefused('wrong_audience', 'The JWT is not for this server');
    if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 200)
      throw new JwtRefused('bad_claims', 'The jti claim must be a string of 1 to 200 characters');
    if (!(await this.seen.remember(issuer.issuer, expected.kind, payload.jti, acceptedUntil(payload))))
      throw new JwtRefused('replayed', 'This JWT was used before (jti)', { issuer: issuer.issuer, jti: payload.jti });
    return { issuer, payload };
  }
}

/**
 * The last moment the JWT passes the time checks above: its `exp` or the end of its `iat`
 * window, whichever comes first, plus the clock skew (and a second: jose compares whole
 * seconds). Its jti must be remembered until then.
 */
function acceptedUntil(payload: JWTPayload): Date {
  // jose refuses once `now - iat - skew` exceeds maxTokenAge (itself the hour plus the skew).
  const ageLimit = payload.iat! + MAX_JWT_AGE_SECONDS + 2 * CLOCK_SKEW_SECONDS;
  const last = payload.exp === undefined ? ageLimit : Math.min(payload.exp + CLOCK_SKEW_SECONDS, ageLimit);
  return new Date((last + 1) * 1000);
}

function refusalOf(err: unknown): JwtRefused {
  if (err instanceof errors.JWKSNoMatchingKey) return new JwtRefused('bad_key', 'No key of the issuer matches (kid)');
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid)
    return new JwtRefused('bad_key', "The issuer's keys could not be read");
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new JwtRefused('bad_signature', 'The signature does not verify');
  if (err instanceof errors.JOSEAlgNotAllowed) return new JwtRefused('bad_signature', 'The algorithm is not allowed');
  if (err instanceof errors.JWTExpired) return new JwtRefused('bad_claims', 'The JWT has expired');
  if (err instanceof errors.JWTClaimValidationFailed)
    return new JwtRefused('bad_claims', `The ${err.claim} claim is not acceptable (${err.reason})`);
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid)
    return new JwtRefused('malformed', 'The JWT is malformed');
  // A key set that could not be fetched (refused address, network): the keys are unusable.
  return new JwtRefused('bad_key', "The issuer's keys could not be read");
}
