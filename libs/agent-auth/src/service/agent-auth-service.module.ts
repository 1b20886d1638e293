import { Module } from '@nestjs/common';
import { BetaFeatures } from './accounts/beta-features.js';
import { AdministerUsers } from './accounts/administer-users.js';
import { CreateUser } from './accounts/create-user.js';
import { DescribeCredential } from './accounts/describe-credential.js';
import { Profile } from './accounts/profile.js';
import { BootstrapAdmin } from './bootstrap-admin.js';
import { CallerAccounts } from './caller-accounts.js';
import { AuthenticateSession } from './credentials/authenticate-session.js';
import {
  AuthenticateToken,
  tokenCredentialStoreProvider,
  tokenUsageStoreProvider,
} from './credentials/authenticate-token.js';
import { CredentialChanges } from './credentials/credential-changes.js';
import { HandoffRevocations } from './credentials/handoff-revocations.js';
import { RecordTokenUses } from './credentials/record-token-uses.js';
import { TokenUsageRecorder } from '@kw/platform-token-cache';
import { SignIn, SignOut } from './credentials/sign-in.js';
import { IdentityHandlers } from './identity.handlers.js';
import { BetaFeaturesRepository } from '../persistence/beta-features.repository.js';
import { identityDbProviders } from '../persistence/identity-database.js';
import { SessionsRepository } from '../persistence/sessions.repository.js';
import { TokensRepository } from '../persistence/tokens.repository.js';
import { UsersRepository } from '../persistence/users.repository.js';
import { ManageTokens } from './tokens/manage-tokens.js';
import { ReachableWorkspaces } from './tokens/reachable-workspaces.js';
import { AgentAuthHandlers } from './agent-auth.handlers.js';
import { AgentClaims } from './agent-auth/agent-claims.js';
import { AgentGrants } from './agent-auth/agent-grants.js';
import { AgentTokenMinter } from './agent-auth/agent-token-minter.js';
import { IdentityAssertions } from './agent-auth/identity-assertions.js';
import { RegisterAgent } from './agent-auth/register-agent.js';
import { SecurityEvents } from './agent-auth/security-events.js';
import { SignedJwtVerifier } from './agent-auth/signed-jwt-verifier.js';
import { TokenEndpoint } from './agent-auth/token-endpoint.js';
import { TrustedIssuers } from './agent-auth/trusted-issuers.js';
import { AuthenticateAgentToken } from './credentials/authenticate-agent-token.js';
import { AgentClaimsRepository } from '../persistence/agent-claims.repository.js';
import { AgentGrantsRepository } from '../persistence/agent-grants.repository.js';
import { SeenJwtIdsRepository } from '../persistence/seen-jwt-ids.repository.js';
import { TrustedIssuersRepository } from '../persistence/trusted-issuers.repository.js';
import { OAuthApplicationsRepository } from '../persistence/oauth-applications.repository.js';
import { OAuthAuthorizationsRepository } from '../persistence/oauth-authorizations.repository.js';
import { ApplicationsHandlers } from './applications.handlers.js';
import { Applications } from './oauth/applications.js';
import { Authorizations } from './oauth/authorizations.js';
import { ClientAuthentication } from './oauth/client-authentication.js';
import { ExpiredRowsSweeper } from '../events/expired-rows-sweeper.js';

/**
 * The agent-auth service: accounts, sessions and personal access tokens (IdentityService);
 * agent authentication (AgentAuthService); OAuth applications (OAuthApplicationsService).
 */
@Module({
  providers: [
    ...identityDbProviders,
    UsersRepository,
    TokensRepository,
    SessionsRepository,
    BetaFeaturesRepository,
    tokenCredentialStoreProvider,
    tokenUsageStoreProvider,
    TokenUsageRecorder,
    RecordTokenUses,
    HandoffRevocations,
    CredentialChanges,
    CallerAccounts,
    AuthenticateToken,
    AuthenticateSession,
    SignIn,
    SignOut,
    DescribeCredential,
    CreateUser,
    AdministerUsers,
    Profile,
    BetaFeatures,
    ManageTokens,
    ReachableWorkspaces,
    BootstrapAdmin,
    IdentityHandlers,
    AgentGrantsRepository,
    AgentClaimsRepository,
    SeenJwtIdsRepository,
    TrustedIssuersRepository,
    TrustedIssuers,
    SignedJwtVerifier,
    IdentityAssertions,
    AgentTokenMinter,
    AgentClaims,
    TokenEndpoint,
    RegisterAgent,
    SecurityEvents,
    AgentGrants,
    AuthenticateAgentToken,
    AgentAuthHandlers,
    OAuthApplicationsRepository,
    OAuthAuthorizationsRepository,
    Applications,
    Authorizations,
    ClientAuthentication,
    ApplicationsHandlers,
    ExpiredRowsSweeper,
  ],
})
export class AgentAuthServiceModule {}
