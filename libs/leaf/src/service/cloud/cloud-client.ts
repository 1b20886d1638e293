import { Inject, Injectable } from '@nestjs/common';
import { LEAF_SETTINGS, type LeafSettings } from '../../leaf-settings.js';
import { asJwks, type Jwks } from '../keys/jwks.js';
import { parseRevocations, type Revocation } from '../credentials/revocation-list.js';
import type { NewEnrollment } from '../../persistence/leaf-state.repository.js';

/** The Cloud answered, and said no (4xx): retrying the same request will not help. */
export class CloudRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CloudRefusedError';
  }
}

/** The Cloud could not be reached, timed out, failed (5xx) or answered something unreadable. */
export class CloudUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CloudUnavailableError';
  }
}

export interface Placement {
  workspaceId: string;
  name: string;
  status: string;
}

export interface HeartbeatAnswer {
  hostedZoneId: string;
  placements: Placement[];
  /** The handoff tokens to refuse (the whole current list); undefined when the Cloud sent none (an older Cloud). */
  revocations?: Revocation[];
  /** The kids the Cloud's JWKS holds now; empty or absent from an older Cloud. */
  handoffKeyIds?: string[];
  /** Workspaces moving out of the zone, to serve read-only (the whole list); undefined from an older Cloud. */
  frozenWorkspaceIds?: string[];
  /** Workspaces whose copy here is no longer theirs: purge, then report each removed. */
  removedWorkspaceIds?: string[];
  /** `iss` of the Cloud's handoff tokens now; absent from an older Cloud. */
  issuer?: string;
  /** The Cloud's keys URL now (at CLOUD_URL's origin); absent from an older Cloud. */
  jwksUri?: string;
}

/** A list of UUID strings from the Cloud's answer (anything else is dropped), at most `max`. */
function idList(value: unknown, max = 10_000): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string' && UUID.test(v)).slice(0, max);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An http(s) URL of reasonable length (the Cloud's issuer and keys URL). */
function issuerLike(value: string): boolean {
  if (value.length > 2048) return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * The Leaf's side of the Cloud's Leaf-facing routes (docs/hosted-zones-leaf.md): enroll,
 * heartbeat, placement ready, JWKS. Only zone id, endpoint, version and workspace ids ever
 * leave the Leaf; no fragment content does.
 */
@Injectable()
export class CloudClient {
  constructor(@Inject(LEAF_SETTINGS) private readonly settings: LeafSettings) {}

  /**
   * `onlyInto`: a zone id; the Cloud then refuses (409 HOSTED_ZONE_MISMATCH) another zone's
   * token without using it, so the Leaf can keep its zone without having changed anything.
   */
  async enroll(enrollmentToken: string, onlyInto?: string): Promise<NewEnrollment> {
    const body = await this.post('/api/hosted-zones/enroll', undefined, {
      enrollmentToken,
      endpointUrl: this.settings.endpointUrl,
      leafVersion: this.settings.leafVersion,
      ...(onlyInto && { hostedZoneId: onlyInto }),
    });
    const fields = ['hostedZoneId', 'zoneCredential', 'issuer', 'audience', 'jwksUri'] as const;
    for (const field of fields) {
      if (typeof body[field] !== 'string' || body[field] === '')
        throw new CloudUnavailableError(`The Cloud's enrollment answer lacks ${field}`);
    }
    return {
      hostedZoneId: body.hostedZoneId as string,
      zoneCredential: body.zoneCredential as string,
      issuer: body.issuer as string,
      audience: body.audience as string,
      jwksUri: this.atCloud(body.jwksUri as string),
    };
  }

  /** `frozenWorkspaceIds`: what the Leaf serves read-only now (a move out copies only once it is). */
  async heartbeat(zoneCredential: string, frozenWorkspaceIds: string[] = []): Promise<HeartbeatAnswer> {
    const body = await this.post('/api/hosted-zones/heartbeat', zoneCredential, {
      endpointUrl: this.settings.endpointUrl,
      leafVersion: this.settings.leafVersion,
      frozenWorkspaceIds,
    });
    const placements = Array.isArray(body.placements) ? (body.placements as unknown[]) : [];
    return {
      hostedZoneId: String(body.hostedZoneId ?? ''),
      placements: placements
        .filter(
          (p): p is Record<string, unknown> =>
            !!p && typeof p === 'object' && typeof (p as Placement).workspaceId === 'string',
        )
        .map((p) => ({
          workspaceId: p.workspaceId as string,
          name: typeof p.name === 'string' ? p.name : '',
          status: String(p.status ?? ''),
        })),
      revocations: parseRevocations(body.revocations),
      handoffKeyIds: Array.isArray(body.handoffKeyIds)
        ? (body.handoffKeyIds as unknown[]).filter((k): k is string => typeof k === 'string').slice(0, 100)
        : [],
      frozenWorkspaceIds: Array.isArray(body.frozenWorkspaceIds) ? idList(body.frozenWorkspaceIds) : undefined,
      removedWorkspaceIds: idList(body.removedWorkspaceIds),
      issuer: typeof body.issuer === 'string' && issuerLike(body.issuer) ? body.issuer : undefined,
      jwksUri: typeof body.jwksUri === 'string' && issuerLike(body.jwksUri) ? this.atCloud(body.jwksUri) : undefined,
    };
  }

  async placementRemoved(zoneCredential: string, workspaceId: string): Promise<void> {
    await this.post(`/api/hosted-zones/placements/${encodeURIComponent(workspaceId)}/removed`, zoneCredential, {});
  }

  async placementReady(zoneCredential: string, workspaceId: string): Promise<void> {
    await this.post(`/api/hosted-zones/placements/${encodeURIComponent(workspaceId)}/ready`, zoneCredential, {});
  }

  async jwks(jwksUri: string): Promise<Jwks> {
    const body = await this.request(jwksUri, { method: 'GET', headers: { accept: 'application/json' } });
    const jwks = asJwks(body);
    if (!jwks) throw new CloudUnavailableError(`${jwksUri} did not answer a JWKS document`);
    return jwks;
  }

  /**
   * The Cloud's path at CLOUD_URL's origin: the Leaf talks to the Cloud only there. The Cloud names its
   * JWKS by its public URL, which the Leaf may not reach the same way (in Compose the Cloud is
   * http://gateway:3000 to the Leaf but http://localhost:3000 in its links).
   */
  private atCloud(uri: string): string {
    const { pathname, search } = new URL(uri, `${this.settings.cloudUrl}/`);
    return `${new URL(this.settings.cloudUrl).origin}${pathname}${search}`;
  }

  private post(path: string, zoneCredential: string | undefined, payload: object): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (zoneCredential) headers.authorization = `Bearer ${zoneCredential}`;
    return this.request(`${this.settings.cloudUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(payload) });
  }

  private async request(url: string, init: RequestInit): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(this.settings.cloudTimeoutMs) });
    } catch (err) {
      throw new CloudUnavailableError(`The Cloud is unreachable (${url}): ${(err as Error).message}`, { cause: err });
    }
    const text = await res.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = text ? JSON.parse(text) : {};
      if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
    } catch {
      if (res.ok) throw new CloudUnavailableError(`The Cloud answered ${url} with something other than JSON`);
    }
    if (res.status >= 400 && res.status < 500) {
      const code = typeof body.code === 'string' ? body.code : `HTTP_${res.status}`;
      const message =
        typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? body.message : res.statusText;
      throw new CloudRefusedError(
        res.status,
        code,
        `The Cloud refused ${init.method} ${new URL(url).pathname}: ${res.status} ${code}: ${message}`,
      );
    }
    if (!res.ok)
      throw new CloudUnavailableError(`The Cloud failed ${init.method} ${new URL(url).pathname}: ${res.status}`);
    return body;
  }
}
