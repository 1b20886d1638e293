import { Inject, Injectable } from '@nestjs/common';
import { HostedZonesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { AccessChanges } from '../access-changes.js';
import { HostedZonesRepository } from '../../persistence/hosted-zones.repository.js';
import { zoneHasMoves, zoneInUse, zoneHoldsArchived } from './hosted-zone-errors.js';
import { HOSTED_ZONE_SETTINGS, type HostedZoneSettings } from './hosted-zone-settings.js';
import { hostedZoneView, zoneStatus, type HostedZoneRow } from './hosted-zone-view.js';
import { ZoneAccess } from './zone-access.js';
import { checkEndpointUrl, checkRegion, checkZoneName } from './zone-fields.js';
import { ENROLLMENT_TOKEN_TTL_MS, hashSecret, newEnrollmentToken } from './zone-secrets.js';

/** Hosted-zone management for users (scope `hosted-zones:manage`): a zone belongs to its creator. */
@Injectable()
export class HostedZonesHandlers {
  constructor(
    private readonly zones: HostedZonesRepository,
    @Inject(HOSTED_ZONE_SETTINGS) private readonly settings: HostedZoneSettings,
    private readonly access: ZoneAccess,
    private readonly changes: AccessChanges,
  ) {}

  @Handles(HostedZonesService.method.createHostedZone)
  async create(input: RequestOf<typeof HostedZonesService, 'createHostedZone'>, context: RequestContext) {
    const { userId } = await this.access.manager(context);
    const { token, hash, expiresAt } = enrollment();
    const zone = await this.zones.create({
      name: checkZoneName(input.name),
      region: checkRegion(input.region),
      endpointUrl: input.endpointUrl ? checkEndpointUrl(input.endpointUrl) : null,
      ownerId: userId,
      enrollmentTokenHash: hash,
      enrollmentTokenExpiresAt: expiresAt,
    });
    return {
      hostedZone: this.view(zone, 0),
      enrollmentToken: token,
      enrollmentTokenExpiresAt: expiresAt.toISOString(),
    };
  }

  @Handles(HostedZonesService.method.listHostedZones)
  async list(_input: RequestOf<typeof HostedZonesService, 'listHostedZones'>, context: RequestContext) {
    const manager = await this.access.manager(context);
    const zones = await this.zones.listWithCounts(manager.platformAdmin ? undefined : manager.userId);
    return { hostedZones: zones.map(({ zone, workspaceCount }) => this.view(zone, workspaceCount)) };
  }

  @Handles(HostedZonesService.method.getHostedZone)
  async get(input: RequestOf<typeof HostedZonesService, 'getHostedZone'>, context: RequestContext) {
    const zone = await this.access.zone(await this.access.manager(context), input.hostedZoneId);
    return { hostedZone: this.view(zone, await this.workspaceCount(zone.id)) };
  }

  @Handles(HostedZonesService.method.updateHostedZone)
  async update(input: RequestOf<typeof HostedZonesService, 'updateHostedZone'>, context: RequestContext) {
    const zone = await this.access.zone(await this.access.manager(context), input.hostedZoneId);
    const data = {
      ...(input.name !== undefined && { name: checkZoneName(input.name) }),
      ...(input.region !== undefined && { region: checkRegion(input.region) }),
      // An empty endpoint clears it (the Leaf registers its own at the next enrollment or heartbeat).
      ...(input.endpointUrl !== undefined && {
        endpointUrl: input.endpointUrl ? checkEndpointUrl(input.endpointUrl) : null,
      }),
    };
    const row = Object.keys(data).length === 0 ? zone : await this.zones.update(zone.id, data);
    // The zone's endpoint is in every HOSTED_ZONE_REQUIRED answer of its workspaces.
    if (row.endpointUrl !== zone.endpointUrl) this.changes.everything();
    return { hostedZone: this.view(row, await this.workspaceCount(zone.id)) };
  }

  @Handles(HostedZonesService.method.deleteHostedZone)
  async delete(input: RequestOf<typeof HostedZonesService, 'deleteHostedZone'>, context: RequestContext) {
    const zone = await this.access.zone(await this.access.manager(context), input.hostedZoneId);
    // A move first: its source workspace counts as live too, and ending the move is what frees the zone.
    const moves = await this.zones.unfinishedMoves(zone.id);
    if (moves.length > 0) throw zoneHasMoves(moves);
    const { live, archived } = await this.zones.workspaceCounts(zone.id);
    if (live > 0) throw zoneInUse(live);
    if (archived > 0 && !input.deleteArchivedWorkspaces) throw zoneHoldsArchived(archived);
    // A placement or a move begun between the checks and the delete: the delete refuses too.
    const deleted = await this.zones.deleteWithArchivedWorkspaces(zone.id);
    if ('refused' in deleted)
      throw deleted.refused === 'moving'
        ? zoneHasMoves(deleted.moves)
        : zoneInUse((await this.zones.workspaceCounts(zone.id)).live);
    if (deleted.length > 0) this.changes.workspaces(deleted);
    return { deletedWorkspaceIds: deleted };
  }

  @Handles(HostedZonesService.method.resetEnrollment)
  async resetEnrollment(input: RequestOf<typeof HostedZonesService, 'resetEnrollment'>, context: RequestContext) {
    const zone = await this.access.zone(await this.access.manager(context), input.hostedZoneId);
    const { token, hash, expiresAt } = enrollment();
    const row = await this.zones.setEnrollmentToken(zone.id, hash, expiresAt);
    return {
      hostedZone: this.view(row, await this.workspaceCount(zone.id)),
      enrollmentToken: token,
      enrollmentTokenExpiresAt: expiresAt.toISOString(),
    };
  }

  private workspaceCount(zoneId: string): Promise<number> {
    return this.zones.workspaceCount(zoneId);
  }

  private view(zone: HostedZoneRow, workspaceCount: number) {
    return hostedZoneView(zone, workspaceCount, zoneStatus(zone, new Date(), this.settings.offlineAfterMs));
  }
}

function enrollment() {
  const token = newEnrollmentToken();
  return { token, hash: hashSecret(token), expiresAt: new Date(Date.now() + ENROLLMENT_TOKEN_TTL_MS) };
}
