import { Module } from '@nestjs/common';
import { gatewayAuthProviders } from '@kw/platform-http';
import { HandoffAuthenticator } from '../service/credentials/handoff-authenticator.js';
import { LeafServiceModule } from '../service/leaf-service.module.js';

/**
 * The leaf component's HTTP side, composed into the Leaf's API: the global AuthGuard with the
 * authenticator that accepts handoff tokens only (no routes of its own).
 */
@Module({
  imports: [LeafServiceModule],
  providers: [...gatewayAuthProviders(HandoffAuthenticator)],
})
export class LeafHttpModule {}
