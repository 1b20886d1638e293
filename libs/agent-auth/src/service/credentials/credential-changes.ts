import { Inject, Injectable } from '@nestjs/common';
import { CredentialsChangedSchema } from '@kw/contracts';
import { broadcast, TRANSPORT, type Transport } from '@kw/platform-transport';

/**
 * Tells every gateway that credentials changed (CredentialsChanged broadcast), so none keeps
 * answering from a cached authentication that no longer holds. Called after the change is
 * stored and before it is answered: NATS keeps one connection's messages in order, so the
 * gateway that forwards the answer has dropped its entry by the time the caller reads it.
 */
@Injectable()
export class CredentialChanges {
  constructor(@Inject(TRANSPORT) private readonly transport: Transport) {}

  tokensChanged(...credentialIds: string[]): void {
    broadcast(this.transport, CredentialsChangedSchema, { credentialIds });
  }

  accountChanged(userId: string): void {
    broadcast(this.transport, CredentialsChangedSchema, { userIds: [userId] });
  }
}
