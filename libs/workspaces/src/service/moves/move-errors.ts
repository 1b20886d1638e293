import { AppError, ErrorCode, notFound } from '@kw/platform-errors';
import type { StartRefusal } from '../../persistence/workspace-moves.repository.js';
import { hostedZoneNotFound, workspaceNotFound } from '../workspace-errors.js';

/** Errors of moving a workspace between planes (docs/portable-workspaces.md#moving). */
export const moveNotFound = (): AppError => notFound('Move');

const conflict = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError({ status: 409, code: ErrorCode.CONFLICT, message, details });

export const alreadyThere = (): AppError =>
  new AppError({
    status: 409,
    code: ErrorCode.CONFLICT,
    message: 'The workspace is already placed there',
    param: 'hostedZoneId',
  });

/** A move to a zone (which keeps no files, Hosted Zone V1) of a workspace that holds some. */
export const filesWouldBeLeft = (count: number, names: string[]): AppError =>
  new AppError({
    status: 409,
    code: ErrorCode.FILES_UNSUPPORTED_IN_HOSTED_ZONE,
    message: `A hosted zone keeps no files and the workspace holds ${count}: ${names.join(', ')}${
      count > names.length ? ', ...' : ''
    }. Download them, then move with leaveFilesBehind=true (they are deleted with the Cloud's copy)`,
    details: { fileCount: count, fileNames: names },
  });

export const moveNotCopying = (status: string): AppError =>
  conflict(
    status === 'preparing'
      ? 'The move is preparing: its target is not provisioned or its source not read-only yet'
      : `The move is ${status}`,
    { moveStatus: status },
  );

export const cloudTarget = (): AppError =>
  conflict("The move's target is the Cloud: import there with your own credential, no handoff is needed");

/** A move whose target zone no longer exists (deleted before deletes were refused during moves): only abort ends it. */
export const targetZoneGone = (zoneId: string): AppError =>
  conflict("The move's target hosted zone was deleted: abort the move (the workspace stays where it is)", {
    toHostedZoneId: zoneId,
  });

export const importNotDone = (status: string): AppError =>
  conflict(`The move's import is ${status}, not done: complete the move once it is done (or abort it)`, {
    importStatus: status,
  });

export function startRefused(refusal: StartRefusal): AppError {
  switch (refusal.refused) {
    case 'gone':
      return workspaceNotFound();
    case 'zone-gone':
      return hostedZoneNotFound();
    case 'not-active':
      return conflict(`The workspace is ${refusal.status}: move it once it is active`, { status: refusal.status });
    case 'moving':
      return conflict('The workspace is moving already: complete or abort that move first', {
        moveId: refusal.moveId,
      });
    case 'leftover':
      return conflict("A previous move's copy on that plane is still being removed; try again in a few seconds", {
        moveId: refusal.moveId,
      });
  }
}
