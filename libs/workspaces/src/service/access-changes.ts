import { Inject, Injectable } from '@nestjs/common';
import { WorkspaceAccessChangedSchema } from '@kw/contracts';
import { broadcast, TRANSPORT, type Transport } from '@kw/platform-transport';

/**
 * Announces that ResolveAccess answers may have changed (WorkspaceAccessChanged broadcast),
 * so data-plane gates drop what they cached. Called after the change is committed and before
 * it is answered: NATS keeps one connection's messages in order, so a gate on the path of the
 * caller's next request has dropped its answer by then.
 */
@Injectable()
export class AccessChanges {
  constructor(@Inject(TRANSPORT) private readonly transport: Transport) {}

  workspace(workspaceId: string): void {
    this.workspaces([workspaceId]);
  }

  workspaces(workspaceIds: string[]): void {
    broadcast(this.transport, WorkspaceAccessChangedSchema, { workspaceIds });
  }

  /** Changes that reach every workspace of a hosted zone. */
  everything(): void {
    broadcast(this.transport, WorkspaceAccessChangedSchema, { all: true });
  }
}
