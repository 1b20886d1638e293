import { Inject, Injectable } from '@nestjs/common';
import type { RequestContext } from '@kw/platform-context';
import { assertAccount } from '../service/caller.js';
import { WORKSPACES_DB, type ControlDb } from '../service/control-db.js';
import { IdentityDirectory } from '../service/identity-directory.js';
import { isUuid } from '@kw/platform-ids';
import { zoneNotFound } from './hosted-zone-errors.js';
import type { HostedZoneRow } from './hosted-zone-view.js';

/** The caller of a zone-management call: needs `hosted-zones:manage`. */
export interface ZoneManager {
  userId: string;
  /** Platform administrators see and manage every zone. */
  platformAdmin: boolean;
}

/** Who may manage which zone: its owner, and platform administrators. */
@Injectable()
export class ZoneAccess {
  constructor(
    @Inject(WORKSPACES_DB) private readonly db: ControlDb,
    private readonly identity: IdentityDirectory,
  ) {}

  async manager(context: RequestContext): Promise<ZoneManager> {
    const { userId } = assertAccount(context, 'hosted-zones:manage');
    const user = (await this.identity.usersById([userId])).get(userId);
    return { userId, platformAdmin: user?.platformAdmin === true };
  }

  /** The zone, or the one 404 for missing, malformed and other users' zones alike. */
  async zone(manager: ZoneManager, zoneId: string): Promise<HostedZoneRow> {
    const zone = isUuid(zoneId) ? await this.db.hostedZone.findUnique({ where: { id: zoneId } }) : null;
    if (!zone || (zone.ownerId !== manager.userId && !manager.platformAdmin)) throw zoneNotFound();
    return zone;
  }
}
