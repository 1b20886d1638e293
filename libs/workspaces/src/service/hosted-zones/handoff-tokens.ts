import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { HANDOFF_ALG, type SigningKey } from './handoff-keys.js';

/** The claims of a handoff token (docs/hosted-zones.md). */
export interface HandoffClaims {
  issuer: string;
  audience: string;
  userId: string;
  workspaceId: string;
  role: string;
  actions: readonly string[];
  /** The Cloud credential the token was issued through (`kw_cred`): revoking it revokes the token. */
  credentialId?: string;
  ttlSeconds: number;
  now: Date;
}

export interface SignedHandoff {
  token: string;
  jti: string;
  expiresAt: Date;
}

/** A compact JWS (ES256) with `kw_ws`, `kw_role`, `kw_actions` and `kw_cred` besides the registered claims. */
export async function signHandoff(key: SigningKey, claims: HandoffClaims): Promise<SignedHandoff> {
  const iat = Math.floor(claims.now.getTime() / 1000);
  const exp = iat + claims.ttlSeconds;
  const jti = randomUUID();
  const token = await new SignJWT({
    kw_ws: claims.workspaceId,
    kw_role: claims.role,
    kw_actions: [...claims.actions],
    ...(claims.credentialId && { kw_cred: claims.credentialId }),
  })
    .setProtectedHeader({ alg: HANDOFF_ALG, kid: key.kid, typ: 'JWT' })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setSubject(claims.userId)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key.key);
  return { token, jti, expiresAt: new Date(exp * 1000) };
}
