import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * A stand-in identity provider on loopback, the part agent authentication talks to: ES256
 * keys made with jose, their JWKS served over HTTP, and minting of ID-JAGs and Security Event
 * Tokens (with any header or claim overridden, for the negative cases). It speaks the wire
 * format only; nothing of the platform's code is used.
 */
export interface IdentityProvider {
  /** The issuer identifier (`iss`), its JWKS URL, and the trusted-issuer entry for AGENT_TRUSTED_ISSUERS. */
  issuer: string;
  jwksUri: string;
  trusted: { issuer: string; jwksUri: string; algorithms: string[] };
  /** Fetches of the JWKS so far. */
  jwksFetches: number;
  /** The PEM of the public key (for the HS256-with-public-key attack). */
  publicKeyPem: string;
  idJag(audience: string, claims?: JWTPayload, header?: Record<string, unknown>): Promise<string>;
  securityEvent(
    audience: string,
    events: Record<string, unknown>,
    claims?: JWTPayload,
    header?: Record<string, unknown>,
  ): Promise<string>;
  /** Signs with a key that is not in the JWKS (an unknown kid). */
  signWithStrangerKey(payload: JWTPayload, header: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const stranger = await generateKeyPair('ES256');
  const kid = `kid-${randomUUID().slice(0, 8)}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const jwksUri = `${issuer}/jwks.json`;
  const now = () => Math.floor(Date.now() / 1000);

  const sign = (key: CryptoKey, payload: JWTPayload, header: Record<string, unknown>) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'ES256', ...header } as never).sign(key);

  return {
    issuer,
    jwksUri,
    trusted: { issuer, jwksUri, algorithms: ['ES256'] },
    get jwksFetches() {
      return fetches;
    },
    publicKeyPem: await exportSPKI(publicKey),
    idJag: (audience, claims = {}, header = {}) =>
      sign(
        privateKey,
        {
          iss: issuer,
          sub: 'idp-user-1',
          aud: audience,
          client_id: 'research-agent',
          jti: randomUUID(),
          iat: now(),
          exp: now() + 300,
          email_verified: true,
          ...claims,
        },
        { typ: 'oauth-id-jag+jwt', kid, ...header },
      ),
    securityEvent: (audience, events, claims = {}, header = {}) =>
      sign(
        privateKey,
        { iss: issuer, aud: audience, jti: randomUUID(), iat: now(), exp: now() + 300, events, ...claims },
        {
          typ: 'secevent+jwt',
          kid,
          ...header,
        },
      ),
    signWithStrangerKey: (payload, header) => sign(stranger.privateKey, payload, { kid: 'stranger', ...header }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
