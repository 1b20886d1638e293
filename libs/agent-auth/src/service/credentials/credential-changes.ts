import { Inject, Injectable } from '@nestjs/common';
import { CredentialsChangedSchema } from '@kw/contracts';
import { broadcast, TRANSPORT, type Transport } from '@kw/platform-transport';
import { HandoffRevocations } from './handoff-revocations.js';

/**
 * Tells every gateway that credentials changed (CredentialsChanged broadcast), so none keeps
 * answering from a cached authentication that no longer holds. Called after the change is
 * stored and before it is answered: NATS keeps one connection's messages in order, so the
 * gateway that forwards the answer has dropped its entry by the time the caller reads it.
 * Revocations also reach the hosted zones' Leaves, which refuse the handoff tokens issued
 * through those credentials or to that account.
 */
@Injectable()
export class CredentialChanges {
  constructor(
    @Inject(TRANSPORT) private readonly transport: Transport,
    private readonly handoffs: HandoffRevocations,
  ) {}

  /** Revoked or narrowed credentials; their handoff tokens are revoked too (best effort). */
  async tokensChanged(...credentialIds: string[]): Promise<void> {
    broadcast(this.transport, CredentialsChangedSchema, { credentialIds });
    await this.handoffs.credentials(credentialIds);
  }

  /** The account's profile changed: cached authentications carry it. */
  accountChanged(userId: string): void {
    broadcast(this.transport, CredentialsChangedSchema, { userIds: [userId] });
  }

  /**
   * The account was disabled, or lost its sessions and grants: gateways drop it and the Leaves
   * refuse every handoff token issued to it until now. Throws when that could not be recorded.
   */
  async accountRevoked(userId: string): Promise<void> {
    broadcast(this.transport, CredentialsChangedSchema, { userIds: [userId] });
    await this.handoffs.accounts([userId]);
  }
}
