import { Module } from '@nestjs/common';
import { gatewayAuthProviders } from '@kw/platform-http';
import { AdminUsersController } from './admin-users.controller.js';
import { AuthController } from './auth.controller.js';
import { TokenAuthenticationCache } from '@kw/platform-token-cache';
import { IdentityGatewayAuthenticator } from './identity-gateway.authenticator.js';
import { DiscoveryController } from './discovery.controller.js';
import { ProfileController } from './profile.controller.js';
import { TokensController } from './tokens.controller.js';
import { AgentGrantsController } from './agent-grants.controller.js';
import { AgentIdentityController } from './agent-identity.controller.js';
import { ApprovalPageAssetsController } from './approval-page/approval-page-assets.controller.js';
import { ClaimPageController } from './approval-page/claim-page.controller.js';
import { ConsentPageController } from './approval-page/consent-page.controller.js';
import { ApplicationsController } from './applications.controller.js';
import { ClientRegistrationController } from './client-registration.controller.js';
import { OAuthController } from './oauth.controller.js';
import { TrustedIssuersController } from './trusted-issuers.controller.js';

/**
 * agent-auth's HTTP side, composed into the API process: its routes (accounts, tokens, agent
 * authentication and its claim page, discovery), and the global AuthGuard
 * that authenticates every route of every component through IdentityService, with the
 * gateway's token authentication cache.
 */
@Module({
  controllers: [
    AuthController,
    AdminUsersController,
    TokensController,
    ProfileController,
    DiscoveryController,
    OAuthController,
    AgentIdentityController,
    ClaimPageController,
    ConsentPageController,
    ApprovalPageAssetsController,
    ApplicationsController,
    ClientRegistrationController,
    AgentGrantsController,
    TrustedIssuersController,
  ],
  providers: [TokenAuthenticationCache, ...gatewayAuthProviders(IdentityGatewayAuthenticator)],
})
export class AgentAuthHttpModule {}
