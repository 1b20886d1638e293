import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface HandoffRequest {
  workspaceId: string;
  userId?: string;
  role?: string;
  actions?: string[];
  audience?: string;
  issuer?: string;
  ttlSeconds?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization?: string;
  body: string;
}

export interface FakeRevocation {
  userId?: string;
  workspaceId?: string;
  credentialId?: string;
}

/**
 * A stand-in for the Cloud's Leaf-facing routes (contract of issue 8): enroll, heartbeat (with
 * its revocation list), placement ready and the JWKS, plus handoff tokens signed with its key.
 * It records every request it receives, so a test can prove what a Leaf sends (and never
 * sends) to the Cloud.
 */
export async function startFakeCloud(options: { enrollmentToken: string }) {
  const zoneId = randomUUID();
  const credential = `kwz_${randomBytes(24).toString('base64url')}`;
  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const placements = new Map<string, { name: string; status: 'processing' | 'active' }>();
  const requests: RecordedRequest[] = [];
  const revocations: Array<FakeRevocation & { revokedAt: string }> = [];
  let enrollmentUsed = false;
  let enrolled: { endpointUrl: string; leafVersion: string } | undefined;
  let heartbeats = 0;

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const audience = `urn:kw:hosted-zone:${zoneId}`;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, code: string) =>
    send(res, status, { error: code.toLowerCase(), code });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = new URL(req.url ?? '/', url).pathname;
    requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
    const json = body ? (JSON.parse(body) as Record<string, string>) : {};
    const zoneAuthorized = req.headers.authorization === `Bearer ${credential}`;

    if (req.method === 'GET' && path === '/.well-known/jwks.json') return send(res, 200, { keys: [jwk] });
    if (req.method === 'POST' && path === '/api/hosted-zones/enroll') {
      if (enrollmentUsed || json.enrollmentToken !== options.enrollmentToken)
        return refuse(res, 401, 'UNAUTHENTICATED');
      enrollmentUsed = true;
      enrolled = { endpointUrl: json.endpointUrl, leafVersion: json.leafVersion };
      // The JWKS named by the Cloud's public URL, which a Leaf may not reach that way (Compose):
      // the Leaf fetches that path at CLOUD_URL.
      return send(res, 200, {
        hostedZoneId: zoneId,
        zoneCredential: credential,
        issuer: url,
        audience,
        jwksUri: 'https://cloud.public.example/.well-known/jwks.json',
      });
    }
    if (req.method === 'POST' && path === '/api/hosted-zones/heartbeat') {
      if (!zoneAuthorized) return refuse(res, 401, 'UNAUTHENTICATED');
      heartbeats++;
      const pending = [...placements]
        .filter(([, p]) => p.status === 'processing')
        .map(([workspaceId, p]) => ({ workspaceId, name: p.name, status: p.status }));
      const listed = revocations.map((r) => ({
        userId: r.userId ?? null,
        workspaceId: r.workspaceId ?? null,
        credentialId: r.credentialId ?? null,
        revokedAt: r.revokedAt,
      }));
      return send(res, 200, { hostedZoneId: zoneId, placements: pending, revocations: listed });
    }
    const ready = /^\/api\/hosted-zones\/placements\/([^/]+)\/ready$/.exec(path);
    if (req.method === 'POST' && ready) {
      if (!zoneAuthorized) return refuse(res, 401, 'UNAUTHENTICATED');
      const placement = placements.get(ready[1]!);
      if (!placement) return refuse(res, 404, 'NOT_FOUND');
      placement.status = 'active';
      return send(res, 200, { placement: { workspaceId: ready[1], name: placement.name, status: 'active' } });
    }
    return refuse(res, 404, 'NOT_FOUND');
  }

  return {
    url,
    zoneId,
    audience,
    requests,
    enrolled: () => enrolled,
    heartbeats: () => heartbeats,
    /** Places a workspace on the zone (what POST /api/workspaces {hostedZoneId} does on the Cloud). */
    place(name: string): string {
      const workspaceId = randomUUID();
      placements.set(workspaceId, { name, status: 'processing' });
      return workspaceId;
    },
    placementStatus: (workspaceId: string) => placements.get(workspaceId)?.status,
    /** Revokes, from now on, the handoff tokens that match (answered with the next heartbeats). */
    revoke(revocation: FakeRevocation): void {
      revocations.push({ ...revocation, revokedAt: new Date().toISOString() });
    },
    /** A handoff token as the Cloud issues it (ES256, its key), with overridable claims. */
    handoff(request: HandoffRequest): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        kw_ws: request.workspaceId,
        kw_role: request.role ?? 'owner',
        kw_actions: request.actions ?? ['fragments:read', 'fragments:write', 'fragments:delete', 'search:read'],
      })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
        .setIssuer(request.issuer ?? url)
        .setAudience(request.audience ?? audience)
        .setSubject(request.userId ?? randomUUID())
        .setJti(randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(now + (request.ttlSeconds ?? 300))
        .sign(privateKey);
    },
    stop(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeCloud = Awaited<ReturnType<typeof startFakeCloud>>;
