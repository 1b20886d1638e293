import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { keepReachableIds } from './token-grants.js';

/** Workspaces asked about at the same time. */
const CHECKS_AT_ONCE = 8;

/**
 * Which of some workspaces the caller reaches at all: its account's (a member's), or public
 * ones, within its credential's own restriction. Asked of the workspaces component, which owns
 * membership (ResolveAccess's `found`: false alike for a workspace that does not exist and for
 * another account's private one, so the answer reveals neither).
 */
@Injectable()
export class ReachableWorkspaces {
  constructor(private readonly client: ServiceClient) {}

  /**
   * A workspace list restricted to what the caller reaches, by the personal access tokens'
   * rule (keepReachableIds): unreachable ids dropped, 403 when none is left. The consent and
   * claim decisions restrict their grants with it.
   */
  async restrict(workspaceIds: readonly string[]): Promise<string[]> {
    return keepReachableIds(workspaceIds, await this.of(workspaceIds)).workspaceIds;
  }

  async of(workspaceIds: readonly string[]): Promise<string[]> {
    const reached: string[] = [];
    for (let i = 0; i < workspaceIds.length; i += CHECKS_AT_ONCE) {
      const batch = workspaceIds.slice(i, i + CHECKS_AT_ONCE);
      const answers = await Promise.all(
        batch.map((workspaceId) => this.client.call(WorkspacesService.method.resolveAccess, { workspaceId })),
      );
      batch.forEach((id, k) => answers[k].found && reached.push(id));
    }
    return reached;
  }
}
