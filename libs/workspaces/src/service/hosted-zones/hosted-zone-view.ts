import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HostedZoneSchema } from '@kw/contracts';
import type { HostedZoneRow } from '../../persistence/rows.js';
import { iso } from '../workspace-view.js';

export type { HostedZoneRow };
export type HostedZoneMessage = MessageInitShape<typeof HostedZoneSchema>;
export type ZoneStatus = 'pending' | 'online' | 'offline';

/** pending until a Leaf enrolled; then online while heartbeats are recent, else offline. */
export function zoneStatus(
  zone: Pick<HostedZoneRow, 'enrolledAt' | 'lastHeartbeatAt'>,
  now: Date,
  offlineAfterMs: number,
): ZoneStatus {
  if (!zone.enrolledAt) return 'pending';
  const last = zone.lastHeartbeatAt ?? zone.enrolledAt;
  return now.getTime() - last.getTime() <= offlineAfterMs ? 'online' : 'offline';
}

export function hostedZoneView(zone: HostedZoneRow, workspaceCount: number, status: ZoneStatus): HostedZoneMessage {
  return {
    id: zone.id,
    name: zone.name,
    region: zone.region,
    endpointUrl: zone.endpointUrl ?? '',
    status,
    ownerId: zone.ownerId,
    enrolledAt: iso(zone.enrolledAt),
    lastHeartbeatAt: iso(zone.lastHeartbeatAt),
    leafVersion: zone.leafVersion ?? '',
    workspaceCount,
    createdAt: iso(zone.createdAt),
    updatedAt: iso(zone.updatedAt),
  };
}
