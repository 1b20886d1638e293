import { Module } from '@nestjs/common';
import { gatewayAuthProviders } from '@kw/platform-http';
import { HandoffAuthenticator } from './auth/handoff-authenticator.js';
import { LeafModule } from './leaf.module.js';

/**
 * The leaf component's HTTP side, composed into the Leaf's API: the global AuthGuard with the
 * authenticator that accepts handoff tokens only (no routes of its own).
 */
@Module({
  imports: [LeafModule],
  providers: [...gatewayAuthProviders(HandoffAuthenticator)],
})
export class LeafHttpModule {}
