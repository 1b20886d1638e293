import { requestBytes, requestJson, type FetchLike } from './http.js';
import type { Handoff, MoveProgress, MoveWorkspaceOptions, Transfer, WorkspaceMove } from './types.js';

interface Plane {
  baseUrl: string;
  token: string;
}

interface Cloud {
  fetch: FetchLike;
  cloudUrl: string;
  token: string;
}

/** The archive a move copies, and how many fragments it holds. */
interface Exported {
  archive: Uint8Array;
  fragments: number;
}

const STEP_TIMEOUT_MS = 10 * 60_000;

/**
 * Moves a workspace between the Cloud and a hosted zone, or between zones
 * (docs/portable-workspaces.md#moving): the Cloud makes it read-only and prepares the target;
 * this client exports it on the source plane and imports the archive on the target plane with
 * a handoff token, so a Leaf's content never passes through the Cloud; it checks that every
 * fragment arrived, then the Cloud switches the placement and removes the source copy. Any
 * failure before the switch aborts the move: the workspace stays where it was.
 */
export async function moveWorkspace(
  cloud: Cloud,
  workspaceId: string,
  hostedZoneId: string | null,
  options: MoveWorkspaceOptions = {},
): Promise<WorkspaceMove> {
  const move = new MoveRun(cloud, workspaceId, options);
  return move.run(hostedZoneId);
}

class MoveRun {
  private moveId = '';
  private readonly pollMs: number;
  private readonly stepTimeoutMs: number;

  constructor(
    private readonly cloud: Cloud,
    private readonly workspaceId: string,
    private readonly options: MoveWorkspaceOptions,
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.stepTimeoutMs = options.stepTimeoutMs ?? STEP_TIMEOUT_MS;
  }

  async run(hostedZoneId: string | null): Promise<WorkspaceMove> {
    let move = (
      await this.atCloud<{ move: WorkspaceMove }>(`api/workspaces/${this.workspaceId}/moves`, {
        method: 'POST',
        body: { hostedZoneId, leaveFilesBehind: this.options.leaveFilesBehind ?? false },
      })
    ).move;
    this.moveId = move.id;
    try {
      this.progress({ phase: 'preparing' });
      move = await this.until('the move to be ready to copy', async () => {
        const current = await this.getMove();
        if (current.status === 'aborted') throw new Error('The move was aborted');
        return current.status === 'copying' ? current : undefined;
      });
      const exported = await this.exportOn(await this.sourcePlane(move));
      const imported = await this.importOn(await this.targetPlane(move), exported);
      const fragments = imported.result.fragments as Record<string, number> | undefined;
      const arrived = (fragments?.created ?? 0) + (fragments?.updated ?? 0) + (fragments?.unchanged ?? 0);
      if (arrived !== exported.fragments)
        throw new Error(`The target holds ${arrived} of the ${exported.fragments} exported fragments`);
      this.progress({ phase: 'completing' });
      move = await this.complete(imported.id);
    } catch (err) {
      // Before the switch nothing is lost: the workspace stays on its source, writable again.
      await this.atCloud(`api/workspaces/${this.workspaceId}/moves/${this.moveId}/abort`, { method: 'POST' }).catch(
        () => undefined,
      );
      throw err;
    }
    this.progress({ phase: 'removing' });
    // The Cloud's copy goes as it completes (complete again retries it); a Leaf's with its next heartbeat.
    move = await this.until('the source copy to be removed', async () => {
      const current = move.fromHostedZoneId ? await this.getMove() : await this.complete('');
      return current.leftoverRemoved ? current : undefined;
    });
    this.progress({ phase: 'done' });
    return move;
  }

  private async exportOn(source: Plane): Promise<Exported> {
    const base = `api/workspaces/${this.workspaceId}/exports`;
    const { transfer } = await requestJson<{ transfer: Transfer }>(
      this.cloud.fetch,
      source.baseUrl,
      source.token,
      base,
      {
        method: 'POST',
      },
    );
    const done = await this.job(source, `${base}/${transfer.id}`, 'exporting');
    const archive = await requestBytes(
      this.cloud.fetch,
      source.baseUrl,
      source.token,
      `${base}/${transfer.id}/download`,
    );
    return { archive, fragments: Number(done.result.fragments ?? 0) };
  }

  private async importOn(target: Plane, exported: Exported): Promise<Transfer> {
    const base = `api/workspaces/${this.workspaceId}/imports`;
    const { transfer } = await requestJson<{ transfer: Transfer }>(
      this.cloud.fetch,
      target.baseUrl,
      target.token,
      base,
      {
        method: 'POST',
        query: { skipFiles: this.options.leaveFilesBehind ? true : undefined },
        bytes: { data: exported.archive, contentType: 'application/zip' },
      },
    );
    return this.job(target, `${base}/${transfer.id}`, 'importing');
  }

  /** Waits for an export or import job to end; a failed one throws its error. */
  private async job(plane: Plane, path: string, phase: MoveProgress['phase']): Promise<Transfer> {
    const finished = await this.until(`the ${phase.replace('ing', '')} job`, async () => {
      const { transfer } = await requestJson<{ transfer: Transfer }>(
        this.cloud.fetch,
        plane.baseUrl,
        plane.token,
        path,
      );
      this.progress({ phase, done: transfer.done, total: transfer.total });
      return transfer.status === 'done' || transfer.status === 'failed' ? transfer : undefined;
    });
    if (finished.status === 'failed') throw new Error(`The ${phase.replace('ing', '')} failed: ${finished.error}`);
    return finished;
  }

  /** The source: the Cloud with the caller's token, or the workspace's Leaf with a handoff token. */
  private async sourcePlane(move: WorkspaceMove): Promise<Plane> {
    if (!move.fromHostedZoneId) return { baseUrl: this.cloud.cloudUrl, token: this.cloud.token };
    const handoff = await this.atCloud<Handoff>(`api/workspaces/${this.workspaceId}/handoff`, { method: 'POST' });
    return { baseUrl: handoff.endpointUrl, token: handoff.token };
  }

  /** The target: the Cloud with the caller's token, or the target Leaf with the move's handoff token. */
  private async targetPlane(move: WorkspaceMove): Promise<Plane> {
    if (!move.toHostedZoneId) return { baseUrl: this.cloud.cloudUrl, token: this.cloud.token };
    const handoff = await this.atCloud<Handoff>(`api/workspaces/${this.workspaceId}/moves/${move.id}/handoff`, {
      method: 'POST',
    });
    return { baseUrl: handoff.endpointUrl, token: handoff.token };
  }

  private async complete(importTransferId: string): Promise<WorkspaceMove> {
    return (
      await this.atCloud<{ move: WorkspaceMove }>(`api/workspaces/${this.workspaceId}/moves/${this.moveId}/complete`, {
        method: 'POST',
        body: importTransferId ? { importTransferId } : {},
      })
    ).move;
  }

  private async getMove(): Promise<WorkspaceMove> {
    return (await this.atCloud<{ move: WorkspaceMove }>(`api/workspaces/${this.workspaceId}/moves/${this.moveId}`))
      .move;
  }

  private atCloud<T>(path: string, options: Parameters<typeof requestJson>[4] = {}): Promise<T> {
    return requestJson<T>(this.cloud.fetch, this.cloud.cloudUrl, this.cloud.token, path, options);
  }

  private progress(progress: Omit<MoveProgress, 'moveId'>): void {
    this.options.onProgress?.({ moveId: this.moveId, ...progress });
  }

  /** Asks `check` every pollMs until it answers something; throws after stepTimeoutMs. */
  private async until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + this.stepTimeoutMs;
    for (;;) {
      const found = await check();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }
}
