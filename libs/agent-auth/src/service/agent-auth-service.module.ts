import { Module } from '@nestjs/common';
import { BetaFeatures } from './accounts/beta-features.js';
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
import { RecordTokenUses } from './credentials/record-token-uses.js';
import { TokenUsageRecorder } from '../domain/tokens/token-usage-recorder.js';
import { SignIn, SignOut } from './credentials/sign-in.js';
import { IdentityHandlers } from './identity.handlers.js';
import { BetaFeaturesRepository } from '../persistence/beta-features.repository.js';
import { identityDbProviders } from '../persistence/identity-database.js';
import { SessionsRepository } from '../persistence/sessions.repository.js';
import { TokensRepository } from '../persistence/tokens.repository.js';
import { UsersRepository } from '../persistence/users.repository.js';
import { ManageTokens } from './tokens/manage-tokens.js';

/** The agent-auth service: accounts, sessions and personal access tokens (IdentityService). */
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
    CredentialChanges,
    CallerAccounts,
    AuthenticateToken,
    AuthenticateSession,
    SignIn,
    SignOut,
    DescribeCredential,
    CreateUser,
    Profile,
    BetaFeatures,
    ManageTokens,
    BootstrapAdmin,
    IdentityHandlers,
  ],
})
export class AgentAuthServiceModule {}
