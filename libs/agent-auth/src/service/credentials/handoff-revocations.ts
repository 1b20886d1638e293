import { Inject, Injectable } from '@nestjs/common';
import { HostedZonesService } from '@kw/contracts';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';

/**
 * Tells the workspaces component, which owns hosted zones, which handoff tokens the Leaves must
 * refuse before they expire: those of disabled accounts and those issued through revoked
 * credentials. It answers them to the Leaves with their next heartbeat
 * (docs/hosted-zones.md#revocation). Called after the change is stored.
 */
@Injectable()
export class HandoffRevocations {
  constructor(
    private readonly client: ServiceClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Throws when the workspaces component cannot record it: the caller fails so the change is retried. */
  async accounts(userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.client.call(HostedZonesService.method.recordHandoffRevocations, { userIds });
  }

  /**
   * Best effort: the credentials themselves are revoked already, and the handoff tokens issued
   * through them end at their expiry (HANDOFF_TOKEN_TTL_SECONDS) if this does not get through.
   */
  async credentials(credentialIds: string[]): Promise<void> {
    if (credentialIds.length === 0) return;
    try {
      await this.client.call(HostedZonesService.method.recordHandoffRevocations, { credentialIds });
    } catch (err) {
      this.logger.error(
        { err, credentialIds },
        'could not revoke the handoff tokens of revoked credentials; they end at their expiry',
      );
    }
  }
}
