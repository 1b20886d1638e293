// 12. Agent authentication: what an agent's access token costs on a route next to a personal
// access token (a), and how fast the token endpoint exchanges ID-JAGs next to verifying the
// same JWTs alone with jose in this process (b). Embedded mode; the trusted issuer's keys are
// inline (AGENT_TRUSTED_ISSUERS), so no JWKS fetch is measured.
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { load, quick } from '../lib.mjs';

const ISSUER = 'https://idp.bench.test';
/** An agent token on a route costs what a PAT costs there (both cached by the gateway). */
export const TARGET = 0.9;
/**
 * Ours: an exchange (HTTP, verification, the jti remembered, a grant and two token hashes
 * stored) costs at most about 16 bare verifications.
 */
export const EXCHANGE_TARGET = 0.06;

/** The issuer's keys and its entry for AGENT_TRUSTED_ISSUERS, made before the platform starts. */
export async function agentIssuer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256' };
  return {
    env: { AGENT_TRUSTED_ISSUERS: JSON.stringify([{ issuer: ISSUER, jwks: { keys: [jwk] }, algorithms: ['ES256'] }]) },
    jwks: { keys: [jwk] },
    mint: (audience, email) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        sub: 'bench-user',
        client_id: 'bench-agent',
        email,
        email_verified: true,
        jti: randomUUID(),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt', kid: 'bench' })
        .setIssuer(ISSUER)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(privateKey);
    },
  };
}

async function exchange(base, assertion) {
  const res = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
  });
  if (res.status !== 200) throw new Error(`token exchange: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function agentAuthScenario({ embedded, issuer }) {
  const base = embedded.api.base;
  const email = embedded.credentials.ADMIN_EMAIL;
  const { access_token } = await exchange(base, await issuer.mint(base, email));
  const route = `${base}/api/workspaces`;
  const agent = { authorization: `Bearer ${access_token}` };
  // Warm both paths first (JIT, caches), so the side measured first is not the slower one.
  await load(route, { headers: embedded.api.auth, duration: 1 });
  await load(route, { headers: agent, duration: 1 });
  const withPat = await load(route, { headers: embedded.api.auth });
  const withAgent = await load(route, { headers: agent });

  // b: exchanges, 8 at a time, each with a fresh single-use ID-JAG minted beforehand.
  const count = quick ? 200 : 1000;
  const assertions = await Promise.all(Array.from({ length: count }, () => issuer.mint(base, email)));
  let next = 0;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < assertions.length) await exchange(base, assertions[next++]);
    }),
  );
  const exchangesPerSecond = count / ((performance.now() - startedAt) / 1000);
  const keys = createLocalJWKSet(issuer.jwks);
  const verifyStart = performance.now();
  for (const jwt of assertions) await jwtVerify(jwt, keys, { issuer: ISSUER, audience: base });
  const verificationsPerSecond = count / ((performance.now() - verifyStart) / 1000);
  return [
    {
      scenario: 'agent access token vs personal access token (GET /api/workspaces)',
      unit: 'req/s',
      platform: withAgent,
      baseline: withPat,
      ratio: withAgent.rps / withPat.rps,
      target: TARGET,
      note: 'embedded mode; both tokens answered from the gateway cache after their first request',
    },
    {
      scenario: 'ID-JAG exchanges at POST /oauth2/token vs jose verifying the same JWTs in this process',
      unit: 'per s',
      platform: { rps: Math.round(exchangesPerSecond) },
      baseline: { rps: Math.round(verificationsPerSecond) },
      ratio: exchangesPerSecond / verificationsPerSecond,
      target: EXCHANGE_TARGET,
      note: `${count} single-use ID-JAGs, 8 at a time; each exchange verifies, remembers the jti and stores a grant with two token hashes`,
    },
  ];
}
