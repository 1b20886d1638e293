import { Inject, Injectable } from '@nestjs/common';
import { FilesService, WorkspaceMovesService, WorkspaceTransfersService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { invalidField } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { Handles, ServiceClient, type RequestOf } from '@kw/platform-transport';
import { assertAllWorkspaces } from '../caller.js';
import { HostedZonesRepository } from '../../persistence/hosted-zones.repository.js';
import { WorkspaceMovesRepository, type MoveRow } from '../../persistence/workspace-moves.repository.js';
import { AccessChanges } from '../access-changes.js';
import { HandoffIssuer } from '../hosted-zones/handoff-issuer.js';
import { ZonePlacement } from '../hosted-zones/zone-placement.js';
import { WorkspaceAccess, type AuthorizedWorkspace } from '../workspace-access.js';
import { CloudLeftoverRemoval } from './cloud-leftover-removal.js';
import {
  alreadyThere,
  cloudTarget,
  filesWouldBeLeft,
  importNotDone,
  moveNotCopying,
  moveNotFound,
  startRefused,
  targetZoneGone,
} from './move-errors.js';
import { moveView } from './move-view.js';

type Req<K extends keyof typeof WorkspaceMovesService.method> = RequestOf<typeof WorkspaceMovesService, K>;

/** What a credential restricted to a list of workspaces cannot do (its 403 says so). */
const MOVING = 'move a workspace between planes';

/** How many file names a refused move names. */
const FILES_NAMED = 10;

/**
 * Moving a workspace between the Cloud and a hosted zone, or between zones
 * (docs/portable-workspaces.md#moving). Owners only (`workspaces:write`). The Cloud keeps the
 * move's state and the placement; the owner's client copies the content (export on the source
 * plane, import on the target plane), so a Leaf's content never passes through the Cloud.
 *
 * Starting a move, its target handoff and its completion change where the workspace's content
 * lives and use an account-level zone, so a credential restricted to a list of workspaces is
 * refused them (403, as every zone route and placing a new workspace); it may read and abort a
 * move, which only puts the workspace back where it was.
 */
@Injectable()
export class WorkspaceMovesHandlers {
  constructor(
    private readonly access: WorkspaceAccess,
    private readonly moves: WorkspaceMovesRepository,
    private readonly zones: HostedZonesRepository,
    private readonly placement: ZonePlacement,
    private readonly issuer: HandoffIssuer,
    private readonly changes: AccessChanges,
    private readonly leftovers: CloudLeftoverRemoval,
    private readonly client: ServiceClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The workspace becomes read-only ("moving"); a target zone provisions it at its next heartbeat. */
  @Handles(WorkspaceMovesService.method.startMove)
  async start(input: Req<'startMove'>, context: RequestContext) {
    const { workspace, userId, auth } = await this.access.authorize(context, input.workspaceId, 'workspaces:write');
    assertAllWorkspaces(auth, MOVING);
    const to = input.hostedZoneId || null;
    // 404 HOSTED_ZONE_NOT_FOUND, 409 HOSTED_ZONE_OFFLINE or HOSTED_ZONE_ENDPOINT_NOT_HTTPS, as when placing.
    if (to !== null) await this.placement.placeableZone(userId, to);
    const from = workspace.hostedZoneId ?? null;
    if (from === to) throw alreadyThere();
    // Only a Cloud workspace holds files, and a zone keeps none (Hosted Zone V1).
    if (to !== null && from === null && !input.leaveFilesBehind) await this.refuseFiles(workspace.id);
    const move = { workspaceId: workspace.id, fromZoneId: from, toZoneId: to, createdBy: userId };
    let started = await this.moves.start({ ...move, leaveFilesBehind: input.leaveFilesBehind });
    // The Cloud's copy of an earlier move not removed yet (the sweeper retries it): try it now, then begin.
    if (
      'refused' in started &&
      started.refused === 'leftover' &&
      to === null &&
      (await this.removeLeftover(workspace.id, started))
    )
      started = await this.moves.start({ ...move, leaveFilesBehind: input.leaveFilesBehind });
    if ('refused' in started) throw startRefused(started);
    // Gates drop their answers: from now on writes are refused on the Cloud (a Leaf source at its next heartbeat).
    this.changes.workspace(workspace.id);
    this.logger.info({ workspaceId: workspace.id, moveId: started.id, from, to }, 'workspace move started');
    return { move: await this.view(started) };
  }

  @Handles(WorkspaceMovesService.method.getMove)
  async get(input: Req<'getMove'>, context: RequestContext) {
    const { move } = await this.find(context, input.workspaceId, input.moveId);
    return { move: await this.view(move) };
  }

  /** A handoff token for the target zone, where the client imports the archive. */
  @Handles(WorkspaceMovesService.method.issueMoveHandoff)
  async handoff(input: Req<'issueMoveHandoff'>, context: RequestContext) {
    const { move, authorized } = await this.find(context, input.workspaceId, input.moveId);
    assertAllWorkspaces(authorized.auth, MOVING);
    if (move.status !== 'copying') throw moveNotCopying(move.status);
    if (!move.toZoneId) throw cloudTarget();
    const zone = await this.zones.findById(move.toZoneId);
    // Never a token for a zone that is gone: no Leaf serves its audience any more.
    if (!zone) throw targetZoneGone(move.toZoneId);
    return {
      handoff: await this.issuer.issue(context, authorized, { id: zone.id, endpointUrl: zone.endpointUrl ?? '' }),
    };
  }

  /**
   * Switches the placement to the target in one transaction, then removes the source copy (the
   * Cloud's at once, a Leaf's at its next heartbeat). A Cloud removal that failed is retried by
   * the sweeper (CloudLeftoverSweeper), and by calling complete again.
   */
  @Handles(WorkspaceMovesService.method.completeMove)
  async complete(input: Req<'completeMove'>, context: RequestContext) {
    const { move, authorized } = await this.find(context, input.workspaceId, input.moveId);
    assertAllWorkspaces(authorized.auth, MOVING);
    if (move.status === 'done') return { move: await this.view(await this.leftovers.remove(move)) };
    if (move.status !== 'copying') throw moveNotCopying(move.status);
    // A Cloud target: the import must have ended done (a Leaf's the client checks there).
    if (!move.toZoneId) await this.checkCloudImport(move, input.importTransferId);
    else if (!(await this.zones.findById(move.toZoneId))) throw targetZoneGone(move.toZoneId);
    const done = await this.moves.complete(move);
    if (!done) throw moveNotCopying((await this.moves.find(move.id, move.workspaceId))?.status ?? 'gone');
    this.changes.workspace(move.workspaceId);
    this.logger.info({ workspaceId: move.workspaceId, moveId: move.id }, 'workspace move completed');
    return { move: await this.view(await this.leftovers.remove(done)) };
  }

  /**
   * The workspace stays on its source plane, writable again; what reached the target is removed.
   * The move ends first, so the gate refuses a running import's next write; while that import
   * still writes, the Cloud's purge is refused and the sweeper retries it once the import ended.
   */
  @Handles(WorkspaceMovesService.method.abortMove)
  async abort(input: Req<'abortMove'>, context: RequestContext) {
    const { move } = await this.find(context, input.workspaceId, input.moveId);
    if (move.status === 'aborted') return { move: await this.view(await this.leftovers.remove(move)) };
    const aborted = await this.moves.abort(move);
    if (!aborted) throw moveNotCopying((await this.moves.find(move.id, move.workspaceId))?.status ?? 'gone');
    this.changes.workspace(move.workspaceId);
    this.logger.info({ workspaceId: move.workspaceId, moveId: move.id }, 'workspace move aborted');
    return { move: await this.view(await this.leftovers.remove(aborted)) };
  }

  private async find(
    context: RequestContext,
    workspaceId: string,
    moveId: string,
  ): Promise<{ move: MoveRow; authorized: AuthorizedWorkspace }> {
    const authorized = await this.access.authorize(context, workspaceId, 'workspaces:write');
    const move = isUuid(moveId) ? await this.moves.find(moveId, authorized.workspace.id) : null;
    if (!move) throw moveNotFound();
    return { move, authorized };
  }

  private async refuseFiles(workspaceId: string): Promise<void> {
    // As the caller (files:read, which owners' sessions hold), through the files component's read contract.
    const { files } = await this.client.call(FilesService.method.listWorkspaceFiles, {
      workspaceId,
      limit: 1000,
      offset: 0,
    });
    if (files.length > 0)
      throw filesWouldBeLeft(
        files.length,
        files.slice(0, FILES_NAMED).map((f) => f.name),
      );
  }

  private async checkCloudImport(move: MoveRow, transferId: string): Promise<void> {
    if (!isUuid(transferId)) throw invalidField('importTransferId', 'the id of the import job on the Cloud');
    const { transfer } = await this.client.call(WorkspaceTransfersService.method.getTransfer, {
      workspaceId: move.workspaceId,
      transferId,
      kind: 'import',
    });
    const status = transfer?.status ?? 'missing';
    if (status !== 'done' || new Date(transfer!.createdAt) < move.createdAt) throw importNotDone(status);
  }

  /** Whether the Cloud's leftover copy named by a refused start is removed now. */
  private async removeLeftover(workspaceId: string, refusal: { moveId: string }): Promise<boolean> {
    const leftover = await this.moves.find(refusal.moveId, workspaceId);
    return leftover !== null && (await this.leftovers.remove(leftover)).leftoverRemovedAt !== null;
  }

  private async view(move: MoveRow) {
    const endpoint = async (zoneId: string | null) =>
      zoneId ? ((await this.zones.findById(zoneId))?.endpointUrl ?? '') : '';
    return moveView(move, { source: await endpoint(move.fromZoneId), target: await endpoint(move.toZoneId) });
  }
}
