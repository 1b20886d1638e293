import type { MessageInitShape } from '@bufbuild/protobuf';
import type { WorkspaceMoveSchema } from '@kw/contracts';
import type { MoveRow } from '../../persistence/workspace-moves.repository.js';
import { iso } from '../workspace-view.js';

export function moveView(
  move: MoveRow,
  endpoints: { source: string; target: string },
): MessageInitShape<typeof WorkspaceMoveSchema> {
  return {
    id: move.id,
    workspaceId: move.workspaceId,
    fromHostedZoneId: move.fromZoneId ?? '',
    toHostedZoneId: move.toZoneId ?? '',
    status: move.status,
    leaveFilesBehind: move.leaveFilesBehind,
    targetEndpointUrl: endpoints.target,
    sourceEndpointUrl: endpoints.source,
    leftoverRemoved: move.leftoverRemovedAt !== null,
    createdBy: move.createdBy,
    createdAt: move.createdAt.toISOString(),
    updatedAt: move.updatedAt.toISOString(),
    completedAt: iso(move.completedAt),
  };
}
