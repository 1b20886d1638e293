import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { WorkspaceMovesRepository, type MoveRow } from '../../persistence/workspace-moves.repository.js';
import { CloudCopyPurge } from './cloud-copy-purge.js';

/**
 * Removes the Cloud's leftover copy of a finished move (the source of a completed move, the
 * target of an aborted one) and records it removed. A Leaf's leftover is not this: it is listed
 * in the Leaf's heartbeats until it reports it removed. A failed purge (an import still writing,
 * a component unreachable) leaves `leftoverRemoved` false; the sweeper and the next move
 * attempt retry it.
 */
@Injectable()
export class CloudLeftoverRemoval {
  constructor(
    private readonly moves: WorkspaceMovesRepository,
    private readonly cloudCopy: CloudCopyPurge,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The move as it is afterwards (unchanged when there was nothing to remove or the purge failed). */
  async remove(seen: MoveRow): Promise<MoveRow> {
    // Read again just before purging: a row the sweeper listed a while ago may have been removed
    // since, and the workspace moved back to the Cloud; its copy there is no leftover then.
    const move = (await this.moves.find(seen.id, seen.workspaceId)) ?? seen;
    const zoneId = move.status === 'done' ? move.fromZoneId : move.status === 'aborted' ? move.toZoneId : undefined;
    if (zoneId !== null || move.leftoverRemovedAt) return move;
    try {
      await this.cloudCopy.purge(move.workspaceId);
    } catch (err) {
      this.logger.warn(
        { err, workspaceId: move.workspaceId, moveId: move.id },
        "the Cloud's copy was not removed yet; retrying",
      );
      return move;
    }
    await this.moves.leftoverRemoved(move.id);
    this.logger.info({ workspaceId: move.workspaceId, moveId: move.id }, "a move's Cloud copy removed");
    return (await this.moves.find(move.id, move.workspaceId)) ?? move;
  }
}
