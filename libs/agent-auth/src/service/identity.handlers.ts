import { Injectable } from '@nestjs/common';
import {
  IdentityService,
  type AccountsExistRequest,
  type AuthenticateSessionRequest,
  type AuthenticateTokenRequest,
  type CreateTokenRequest,
  type CreateUserRequest,
  type FindUserByEmailRequest,
  type GetTokenAnalyticsRequest,
  type GetTokenRequest,
  type GetUserRequest,
  type GetUsersRequest,
  type ListUsersRequest,
  type RecordTokenUsesRequest,
  type RevokeTokenRequest,
  type SetUserStatusRequest,
  type SignInRequest,
  type UpdateBetaFeatureRequest,
  type UpdateProfileRequest,
  type UpdateTokenRequest,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { Handles } from '@kw/platform-transport';
import { AdministerUsers } from './accounts/administer-users.js';
import { BetaFeatures } from './accounts/beta-features.js';
import { CreateUser } from './accounts/create-user.js';
import { DescribeCredential } from './accounts/describe-credential.js';
import { Profile } from './accounts/profile.js';
import { AuthenticateSession } from './credentials/authenticate-session.js';
import { AuthenticateToken } from './credentials/authenticate-token.js';
import { RecordTokenUses } from './credentials/record-token-uses.js';
import { SignIn, SignOut } from './credentials/sign-in.js';
import { toUserMessage } from './mappers.js';
import { UsersRepository } from '../persistence/users.repository.js';
import { ManageTokens } from './tokens/manage-tokens.js';
import { isUuid } from '@kw/platform-ids';
import { canonicalEmail } from '../domain/accounts/email.js';

/** IdentityService over the transport: each method hands over to its use case. */
@Injectable()
export class IdentityHandlers {
  constructor(
    private readonly authenticateTokenCase: AuthenticateToken,
    private readonly authenticateSessionCase: AuthenticateSession,
    private readonly signInCase: SignIn,
    private readonly signOutCase: SignOut,
    private readonly describeCredentialCase: DescribeCredential,
    private readonly createUserCase: CreateUser,
    private readonly administerUsers: AdministerUsers,
    private readonly profile: Profile,
    private readonly betaFeatures: BetaFeatures,
    private readonly tokens: ManageTokens,
    private readonly users: UsersRepository,
    private readonly recordTokenUsesCase: RecordTokenUses,
  ) {}

  @Handles(IdentityService.method.authenticateToken)
  authenticateToken(input: AuthenticateTokenRequest) {
    return this.authenticateTokenCase.execute(input.token, input.ip);
  }

  /** Sent by gateways, on their own timer: there is no caller, only the uses they counted. */
  @Handles(IdentityService.method.recordTokenUses)
  async recordTokenUses(input: RecordTokenUsesRequest) {
    await this.recordTokenUsesCase.execute(input);
    return {};
  }

  @Handles(IdentityService.method.authenticateSession)
  authenticateSession(input: AuthenticateSessionRequest) {
    return this.authenticateSessionCase.execute(input.sessionToken);
  }

  /** Other components resolve users of their records; any authenticated caller may. */
  @Handles(IdentityService.method.getUsers)
  async getUsers(input: GetUsersRequest, context: RequestContext) {
    requireCaller(context);
    const ids = input.ids.filter((id) => isUuid(id));
    return { users: ids.length > 0 ? (await this.users.findManyByIds([...new Set(ids)])).map(toUserMessage) : [] };
  }

  /** Internal: which ids are accounts, for work without a caller (a billing webhook). Reveals nothing else. */
  @Handles(IdentityService.method.accountsExist)
  async accountsExist(input: AccountsExistRequest) {
    const ids = [...new Set(input.ids.filter((id) => isUuid(id)))];
    return { existingIds: ids.length > 0 ? (await this.users.findManyByIds(ids)).map((u) => u.id) : [] };
  }

  @Handles(IdentityService.method.findUserByEmail)
  async findUserByEmail(input: FindUserByEmailRequest, context: RequestContext) {
    requireCaller(context);
    const user = await this.users.findByEmail(canonicalEmail(input.email));
    return user && user.status === 'active' ? { found: true, user: toUserMessage(user) } : { found: false };
  }

  @Handles(IdentityService.method.signIn)
  signIn(input: SignInRequest) {
    return this.signInCase.execute(input);
  }

  @Handles(IdentityService.method.signOut)
  async signOut(_input: unknown, context: RequestContext) {
    await this.signOutCase.execute(context);
    return {};
  }

  @Handles(IdentityService.method.describeCredential)
  describeCredential(_input: unknown, context: RequestContext) {
    return this.describeCredentialCase.execute(context);
  }

  @Handles(IdentityService.method.createUser)
  createUser(input: CreateUserRequest, context: RequestContext) {
    return this.createUserCase.execute(input, context);
  }

  @Handles(IdentityService.method.listUsers)
  listUsers(input: ListUsersRequest, context: RequestContext) {
    return this.administerUsers.list(input, context);
  }

  @Handles(IdentityService.method.getUser)
  getUser(input: GetUserRequest, context: RequestContext) {
    return this.administerUsers.get(input, context);
  }

  @Handles(IdentityService.method.setUserStatus)
  setUserStatus(input: SetUserStatusRequest, context: RequestContext) {
    return this.administerUsers.setStatus(input, context);
  }

  @Handles(IdentityService.method.listTokens)
  listTokens(_input: unknown, context: RequestContext) {
    return this.tokens.list(context);
  }

  @Handles(IdentityService.method.createToken)
  createToken(input: CreateTokenRequest, context: RequestContext) {
    return this.tokens.create(input, context);
  }

  @Handles(IdentityService.method.getToken)
  getToken(input: GetTokenRequest, context: RequestContext) {
    return this.tokens.get(input.id, context);
  }

  @Handles(IdentityService.method.updateToken)
  updateToken(input: UpdateTokenRequest, context: RequestContext) {
    return this.tokens.update(input, context);
  }

  @Handles(IdentityService.method.revokeToken)
  async revokeToken(input: RevokeTokenRequest, context: RequestContext) {
    await this.tokens.revoke(input.id, context);
    return {};
  }

  @Handles(IdentityService.method.getTokenAnalytics)
  getTokenAnalytics(input: GetTokenAnalyticsRequest, context: RequestContext) {
    return this.tokens.analytics(input.id, context);
  }

  @Handles(IdentityService.method.getProfile)
  getProfile(_input: unknown, context: RequestContext) {
    return this.profile.get(context);
  }

  @Handles(IdentityService.method.updateProfile)
  updateProfile(input: UpdateProfileRequest, context: RequestContext) {
    return this.profile.update(input, context);
  }

  @Handles(IdentityService.method.listBetaFeatures)
  listBetaFeatures(_input: unknown, context: RequestContext) {
    return this.betaFeatures.list(context);
  }

  @Handles(IdentityService.method.updateBetaFeature)
  async updateBetaFeature(input: UpdateBetaFeatureRequest, context: RequestContext) {
    return { features: (await this.betaFeatures.update(input, context)).features };
  }
}

function requireCaller(context: RequestContext): void {
  if (!context.auth?.userId)
    throw new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: 'Authentication required' });
}
