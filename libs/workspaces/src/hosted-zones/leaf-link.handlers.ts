import { Inject, Injectable } from '@nestjs/common';
import { HostedZonesService } from '@kw/contracts';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { AccessChanges } from '../service/access-changes.js';
import { WORKSPACES_DB, type ControlDb } from '../service/control-db.js';
import { isUuid } from '@kw/platform-ids';
import { leafUnauthenticated, placementNotFound } from './hosted-zone-errors.js';
import { HOSTED_ZONE_SETTINGS, jwksPath, zoneAudience, type HostedZoneSettings } from './hosted-zone-settings.js';
import type { HostedZoneRow } from './hosted-zone-view.js';
import { checkEndpointUrl, checkLeafVersion } from './zone-fields.js';
import {
  ENROLLMENT_TOKEN_PREFIX,
  ZONE_CREDENTIAL_PREFIX,
  hashSecret,
  looksLike,
  newZoneCredential,
} from './zone-secrets.js';

/**
 * The Leaf-facing half: a Leaf is not a user, so these carry their own credential (the
 * one-time enrollment token, then the zone credential) and no auth context. Only zone id,
 * endpoint, version and workspace ids cross here: never workspace content.
 */
@Injectable()
export class LeafLinkHandlers {
  constructor(
    @Inject(WORKSPACES_DB) private readonly db: ControlDb,
    @Inject(HOSTED_ZONE_SETTINGS) private readonly settings: HostedZoneSettings,
    private readonly changes: AccessChanges,
  ) {}

  @Handles(HostedZonesService.method.enrollLeaf)
  async enroll(input: RequestOf<typeof HostedZonesService, 'enrollLeaf'>) {
    if (!looksLike(input.enrollmentToken, ENROLLMENT_TOKEN_PREFIX)) throw leafUnauthenticated('enrollment token');
    const endpointUrl = checkEndpointUrl(input.endpointUrl);
    const leafVersion = checkLeafVersion(input.leafVersion);
    const hash = hashSecret(input.enrollmentToken);
    const zone = await this.db.hostedZone.findUnique({ where: { enrollmentTokenHash: hash } });
    const now = new Date();
    if (!zone || !zone.enrollmentTokenExpiresAt || zone.enrollmentTokenExpiresAt <= now)
      throw leafUnauthenticated('enrollment token');
    const credential = newZoneCredential();
    // Conditional on the hash still being there: of two concurrent uses, exactly one wins.
    const { count } = await this.db.hostedZone.updateMany({
      where: { id: zone.id, enrollmentTokenHash: hash },
      data: {
        enrollmentTokenHash: null,
        enrollmentTokenExpiresAt: null,
        credentialHash: hashSecret(credential),
        enrolledAt: now,
        lastHeartbeatAt: now,
        endpointUrl,
        leafVersion: leafVersion || null,
      },
    });
    if (count !== 1) throw leafUnauthenticated('enrollment token');
    // The zone's endpoint is in every HOSTED_ZONE_REQUIRED answer of its workspaces.
    if (endpointUrl !== zone.endpointUrl) this.changes.everything();
    return {
      hostedZoneId: zone.id,
      zoneCredential: credential,
      issuer: this.settings.issuer,
      audience: zoneAudience(zone.id),
      jwksUri: `${this.settings.issuer}${jwksPath}`,
    };
  }

  @Handles(HostedZonesService.method.leafHeartbeat)
  async heartbeat(input: RequestOf<typeof HostedZonesService, 'leafHeartbeat'>) {
    const zone = await this.zoneOf(input.zoneCredential);
    const endpointUrl = input.endpointUrl ? checkEndpointUrl(input.endpointUrl) : undefined;
    const leafVersion = input.leafVersion ? checkLeafVersion(input.leafVersion) : undefined;
    await this.db.hostedZone.update({
      where: { id: zone.id },
      data: { lastHeartbeatAt: new Date(), ...(endpointUrl && { endpointUrl }), ...(leafVersion && { leafVersion }) },
    });
    if (endpointUrl && endpointUrl !== zone.endpointUrl) this.changes.everything();
    const pending = await this.db.workspace.findMany({
      where: { hostedZoneId: zone.id, status: 'processing', archivedAt: null },
      select: { id: true, name: true, status: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return {
      hostedZoneId: zone.id,
      placements: pending.map((w) => ({ workspaceId: w.id, name: w.name, status: w.status })),
    };
  }

  @Handles(HostedZonesService.method.markPlacementReady)
  async ready(input: RequestOf<typeof HostedZonesService, 'markPlacementReady'>) {
    const zone = await this.zoneOf(input.zoneCredential);
    if (!isUuid(input.workspaceId)) throw placementNotFound();
    // Idempotent: a Leaf that reports again after a lost answer gets the same result.
    const { count } = await this.db.workspace.updateMany({
      where: { id: input.workspaceId, hostedZoneId: zone.id },
      data: { status: 'active' },
    });
    if (count !== 1) throw placementNotFound();
    this.changes.workspace(input.workspaceId);
    await this.db.hostedZone.update({ where: { id: zone.id }, data: { lastHeartbeatAt: new Date() } });
    const workspace = await this.db.workspace.findUniqueOrThrow({
      where: { id: input.workspaceId },
      select: { id: true, name: true, status: true },
    });
    return { placement: { workspaceId: workspace.id, name: workspace.name, status: workspace.status } };
  }

  private async zoneOf(credential: string): Promise<HostedZoneRow> {
    if (!looksLike(credential, ZONE_CREDENTIAL_PREFIX)) throw leafUnauthenticated('zone credential');
    const zone = await this.db.hostedZone.findUnique({ where: { credentialHash: hashSecret(credential) } });
    if (!zone) throw leafUnauthenticated('zone credential');
    return zone;
  }
}
