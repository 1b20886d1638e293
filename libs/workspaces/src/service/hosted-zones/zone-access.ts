import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@kw/platform-context';
import { assertAccount, assertAllWorkspaces } from '../caller.js';
import { HostedZonesRepository } from '../../persistence/hosted-zones.repository.js';
import { IdentityDirectory } from '../identity-directory.js';
import { isUuid } from '@kw/platform-ids';
import { zoneNotFound } from './hosted-zone-errors.js';
import type { HostedZoneRow } from './hosted-zone-view.js';

/** The caller of a zone-management call: needs `hosted-zones:manage` and a credential for all workspaces. */
export interface ZoneManager {
  userId: string;
  /** Platform administrators see and manage every zone. */
  platformAdmin: boolean;
}

/** Who may manage which zone: its owner, and platform administrators. */
@Injectable()
export class ZoneAccess {
  constructor(
    private readonly zones: HostedZonesRepository,
    private readonly identity: IdentityDirectory,
  ) {}

  async manager(context: RequestContext): Promise<ZoneManager> {
    const { userId, auth } = assertAccount(context, 'hosted-zones:manage');
    // A zone serves workspaces outside any list (its endpoint and enrollment decide where
    // all of them send tokens and content), so reading or managing zones is account-wide.
    assertAllWorkspaces(auth, 'manage hosted zones');
    const user = (await this.identity.usersById([userId])).get(userId);
    return { userId, platformAdmin: user?.platformAdmin === true };
  }

  /** The zone, or the one 404 for missing, malformed and other users' zones alike. */
  async zone(manager: ZoneManager, zoneId: string): Promise<HostedZoneRow> {
    const zone = isUuid(zoneId) ? await this.zones.findById(zoneId) : null;
    if (!zone || (zone.ownerId !== manager.userId && !manager.platformAdmin)) throw zoneNotFound();
    return zone;
  }
}
