import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';

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
