import { Inject, Injectable } from '@nestjs/common';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { publicFetch, type PublicFetchPolicy } from '@kw/platform-net';
import { APP_CONFIG } from '@kw/platform-runtime';
import type { TrustedIssuerRow } from '../persistence/embed-configs.repository.js';

/** Remote key sets kept (each caches its keys and refetches on an unknown `kid`). */
const REMOTE_SETS_MAX = 200;
const JWKS_FETCH_TIMEOUT_MS = 5_000;
/**
 * Keys tried for a token without `kid` when several keys of the set fit its `alg` (an issuer
 * publishing its old and new keys while it rotates): each costs a signature check.
 */
const KIDLESS_CANDIDATES_MAX = 10;
/** Clocks of the host's server and ours may differ a little. */
const CLOCK_TOLERANCE_SECONDS = 30;

const refused = (why: string) =>
  new AppError({
    status: 401,
    code: ErrorCode.UNAUTHENTICATED,
    message: `The host page's token was refused: ${why}`,
  });

/** The remote key set could not be had: the JWKS URL failed, answered another status than 200, or no JSON. */
class KeySetUnavailable extends Error {}

/** Why jose refused a token, in words a host page's developer can act on. */
function reasonOf(err: unknown): string {
  if (err instanceof KeySetUnavailable) return "the trusted issuer's key set could not be fetched";
  if (err instanceof joseErrors.JWTExpired) return 'it has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return 'it is not from the trusted issuer';
    if (err.claim === 'aud') return 'its audience is not the configured one';
    if (err.claim === 'nbf') return 'it is not valid yet';
    return `its "${err.claim}" claim is not acceptable`;
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "no key of the trusted issuer's key set matches it";
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (
    err instanceof joseErrors.JWKSTimeout ||
    err instanceof joseErrors.JWKSInvalid ||
    !(err instanceof joseErrors.JOSEError)
  )
    return "the trusted issuer's key set could not be fetched";
  return 'it is not a valid signed JWT';
}

/**
 * Verifies the JWT a host page sends for its signed-in user against the embed configuration's
 * trusted issuer (`jose`): signature by one of the issuer's keys (a JWKS URL, fetched and cached,
 * or the keys stored on the configuration), `iss`, `aud`, `exp` and `nbf`. The user is named by
 * the `email` claim, which `email_verified` must say is verified (`true`, or the string "true"). A JWKS URL is fetched through
 * publicFetch: public HTTPS addresses only, checked at each fetch (the name may resolve anywhere
 * since it was saved), no redirects, unless EMBED_JWKS_ALLOW_PRIVATE (tests).
 */
@Injectable()
export class HostIdentity {
  private readonly remoteSets = new Map<string, JWTVerifyGetKey>();
  private readonly fetchPolicy: PublicFetchPolicy;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.fetchPolicy = { allowPrivate: config.EMBED_JWKS_ALLOW_PRIVATE === true, timeoutMs: JWKS_FETCH_TIMEOUT_MS };
  }

  async verify(token: string, issuer: TrustedIssuerRow): Promise<{ email: string; subject: string }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await verifyWithSet(token, this.keysOf(issuer), {
        issuer: issuer.issuer,
        audience: issuer.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw refused(reasonOf(err));
    }
    const email = payload.email;
    if (typeof email !== 'string' || !email.includes('@')) throw refused('it carries no "email" claim');
    // Only true says the issuer verified the address: some issuers serialise the claim as a
    // string, so "true" counts too, while "false", a missing claim or anything else does not.
    if (payload.email_verified !== true && payload.email_verified !== 'true')
      throw refused('its email is not verified');
    return { email, subject: payload.sub ?? '' };
  }

  private keysOf(issuer: TrustedIssuerRow): JWTVerifyGetKey {
    if (issuer.jwksJson)
      return createLocalJWKSet(JSON.parse(issuer.jwksJson) as Parameters<typeof createLocalJWKSet>[0]);
    let set = this.remoteSets.get(issuer.jwksUrl);
    if (!set) {
      if (this.remoteSets.size >= REMOTE_SETS_MAX) this.remoteSets.delete(this.remoteSets.keys().next().value!);
      const remote = createRemoteJWKSet(new URL(issuer.jwksUrl), {
        timeoutDuration: JWKS_FETCH_TIMEOUT_MS,
        [customFetch]: (url: string, init: RequestInit) => publicFetch(url, init, this.fetchPolicy),
      });
      // Besides "no key matches" (and "several do"), the remote set fails only for its fetch: a
      // status other than 200 or a body that is not JSON is a generic JOSEError, which would
      // otherwise read as a malformed token.
      set = async (header, token) => {
        try {
          return await remote(header, token);
        } catch (err) {
          if (
            err instanceof joseErrors.JWKSNoMatchingKey ||
            err instanceof joseErrors.JWKSMultipleMatchingKeys ||
            err instanceof joseErrors.JOSENotSupported
          )
            throw err;
          throw new KeySetUnavailable('JWKS unavailable', { cause: err });
        }
      };
      this.remoteSets.set(issuer.jwksUrl, set);
    }
    return set;
  }
}

/**
 * jwtVerify against a key set, trying each fitting key when the token names none (no `kid`) and
 * the set has several for its `alg`: jose then refuses with an error that lists them. The first
 * key whose signature verifies decides (its claims checked as usual); at most
 * KIDLESS_CANDIDATES_MAX are tried.
 */
async function verifyWithSet(
  token: string,
  keys: JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<{ payload: JWTPayload }> {
  try {
    return await jwtVerify(token, keys, options);
  } catch (err) {
    if (!(err instanceof joseErrors.JWKSMultipleMatchingKeys)) throw err;
    let tried = 0;
    for await (const key of err) {
      if (tried++ >= KIDLESS_CANDIDATES_MAX) break;
      try {
        return await jwtVerify(token, key, options);
      } catch (attempt) {
        if (!(attempt instanceof joseErrors.JWSSignatureVerificationFailed)) throw attempt;
      }
    }
    throw new joseErrors.JWSSignatureVerificationFailed();
  }
}
