import { Inject, Injectable } from '@nestjs/common';
import { HostedZonesRepository } from '../../persistence/hosted-zones.repository.js';
import { isUuid } from '@kw/platform-ids';
import { hostedZoneNotFound } from '../workspace-errors.js';
import { hostedZoneEndpointNotHttps, hostedZoneOffline } from './hosted-zone-errors.js';
import { HOSTED_ZONE_SETTINGS, type HostedZoneSettings } from './hosted-zone-settings.js';
import { zoneStatus, type HostedZoneRow } from './hosted-zone-view.js';
import { isHttpsEndpoint } from './zone-fields.js';

/** Where a new workspace may be placed: a zone of the caller whose Leaf is online at an https endpoint. */
@Injectable()
export class ZonePlacement {
  constructor(
    private readonly zones: HostedZonesRepository,
    @Inject(HOSTED_ZONE_SETTINGS) private readonly settings: HostedZoneSettings,
  ) {}

  /**
   * 404 HOSTED_ZONE_NOT_FOUND for a missing or foreign zone; 409 HOSTED_ZONE_OFFLINE unless
   * online; 409 HOSTED_ZONE_ENDPOINT_NOT_HTTPS for a plain-http endpoint (unless allowed for development).
   */
  async placeableZone(userId: string, hostedZoneId: string): Promise<HostedZoneRow> {
    const zone = isUuid(hostedZoneId) ? await this.zones.findById(hostedZoneId) : null;
    if (!zone || zone.ownerId !== userId) throw hostedZoneNotFound();
    const status = zoneStatus(zone, new Date(), this.settings.offlineAfterMs);
    if (status !== 'online') throw hostedZoneOffline(status);
    if (!this.settings.allowHttpEndpoints && !isHttpsEndpoint(zone.endpointUrl)) throw hostedZoneEndpointNotHttps();
    return zone;
  }
}
