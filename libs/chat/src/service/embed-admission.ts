import { Inject, Injectable, Optional } from '@nestjs/common';
import { create } from '@bufbuild/protobuf';
import { AuthContextSchema, IdentityService, WorkspacesService, type AuthContext } from '@kw/contracts';
import { grantReaches } from '@kw/platform-access-policy';
import { PerAccountCache } from '@kw/platform-entitlements';
import { AppError, ErrorCode, secretUnreadable } from '@kw/platform-errors';
import { SECRET_BOX, type SecretBox } from '@kw/platform-secret-box';
import {
  fetchTokenAuthentication,
  TokenAuthenticationCache,
  type FetchedAuthentication,
} from '@kw/platform-token-cache';
import { isUuid } from '@kw/platform-ids';
import { ServiceClient } from '@kw/platform-transport';
import {
  EmbedConfigsRepository,
  type EmbedConfigRow,
  type EmbedKeyRow,
} from '../persistence/embed-configs.repository.js';
import { ExpertsRepository } from '../persistence/experts.repository.js';
import { asConfigCreator } from './as-config-creator.js';
import { embedConfigView } from './embed-config-view.js';
import { expertView } from './expert-view.js';
import { EmbedStanding, type CreatorStanding } from './embed-standing.js';
import { HostIdentity } from './host-identity.js';

/**
 * What a user identified by the host page's JWT may do: read the configuration's workspace and
 * chat. Never more: whoever manages the configuration chooses the issuer, so a JWT must not be
 * able to act for a member beyond reading. Writing needs the key's scoped token, which is the
 * configuration creator's own.
 */
export const HOST_USER_SCOPES = [
  'workspaces:read',
  'fragments:read',
  'collections:read',
  'files:read',
  'search:read',
  'chat:use',
  'profile:read',
] as const;

/** How long a turn reuses the workspace name an earlier turn read. */
const WORKSPACE_NAME_TTL_MS = 10_000;

/** Routing candidates considered per turn. */
const ROUTED_EXPERTS_MAX = 50;

const keyInvalid = () =>
  new AppError({
    status: 401,
    code: ErrorCode.EMBED_KEY_INVALID,
    message: 'Unknown, revoked or expired embed key',
  });

const originRefused = () =>
  new AppError({
    status: 403,
    code: ErrorCode.ORIGIN_NOT_ALLOWED,
    message: "This page's origin is not one of the embed key's allowed origins",
  });

const filesNotShared = () =>
  new AppError({
    status: 403,
    code: ErrorCode.FORBIDDEN,
    message: 'This embed configuration does not share workspace files with the host page',
  });

const noIdentity = (message: string) => new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message });

/** One answer whether the email is unknown, the account disabled or not a member: nothing to probe. */
const noMember = () =>
  noIdentity("The host page's token does not name a user of this platform who is a member of this workspace");

/** The creator no longer manages the workspace: the issuer they chose speaks for nobody. */
const issuerNotInForce = () =>
  noIdentity(
    "This embed configuration's trusted issuer is not in force: only a configuration whose creator manages the workspace may identify users by JWT",
  );

/** Known, not revoked, not expired, its configuration active. */
const isLive = (key: EmbedKeyRow, config: EmbedConfigRow) =>
  !key.revokedAt && !(key.expiresAt && key.expiresAt.getTime() <= Date.now()) && config.status === 'active';

/**
 * The configuration acts with its creator's access, so it stops with it (the answer of an unknown
 * key): they must be an active account that reads the workspace, and manage it for a public key.
 */
async function assertCreatorStands(standing: EmbedStanding, key: EmbedKeyRow, config: EmbedConfigRow) {
  const creator = await standing.ofCreator(config);
  if (!creator.reads || (key.public && !creator.manages)) throw keyInvalid();
  return creator;
}

export interface AdmitRequest {
  keyHash: string;
  origin: string;
  hostToken: string;
  preflight: boolean;
  frame: boolean;
  filesBridge: boolean;
}

/**
 * Admits an embed request: the key (known, not revoked, not expired, its configuration active,
 * its creator still standing: EmbedStanding), the Origin (one of a non-public key's allowed origins), then who is chatting: the host page's
 * JWT verified against the configuration's trusted issuer, else the key's scoped token. The
 * caller it answers is restricted to the configuration's workspace whichever way it was found.
 */
@Injectable()
export class EmbedAdmission {
  private readonly workspaceNames = new PerAccountCache<{ workspaceName: string }>(WORKSPACE_NAME_TTL_MS);

  constructor(
    private readonly configs: EmbedConfigsRepository,
    private readonly experts: ExpertsRepository,
    private readonly hostIdentity: HostIdentity,
    private readonly standing: EmbedStanding,
    private readonly client: ServiceClient,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Optional() private readonly tokenCache?: TokenAuthenticationCache,
  ) {}

  async admit(request: AdmitRequest) {
    const found = /^[0-9a-f]{64}$/.test(request.keyHash) ? await this.configs.findKeyByHash(request.keyHash) : null;
    if (!found) throw keyInvalid();
    const { key, config } = found;
    if (!isLive(key, config)) throw keyInvalid();
    const creator = await assertCreatorStands(this.standing, key, config);
    const admitted = {
      keyId: key.id,
      config: embedConfigView(config),
      allowedOrigins: key.allowedOrigins,
      publicKey: key.public,
    };
    if (request.frame) return admitted;
    if (!key.public && !key.allowedOrigins.includes(request.origin)) throw originRefused();
    if (request.preflight) return admitted;
    if (request.filesBridge && !config.features.exposeWorkspaceFilesToParent) throw filesNotShared();

    const identified = request.hostToken
      ? await this.hostUser(config, creator, request.hostToken, key.id, request.filesBridge)
      : await this.scopedTokenUser(config, key.scopedTokenSealed);
    const [{ workspaceName }, routable] = await Promise.all([
      this.workspaceName(config),
      this.experts.ofWorkspace(config.createdBy, config.workspaceId, ROUTED_EXPERTS_MAX),
    ]);
    const main = routable.find((e) => e.id === config.mainExpertId);
    return {
      ...admitted,
      caller: identified.caller,
      identifiedBy: identified.by,
      mainExpert: main ? expertView(main) : undefined,
      routedExperts: routable.filter((e) => e !== main && e.routingKeywords.length > 0).map(expertView),
      workspaceName,
    };
  }

  /**
   * Before each tool call of an admitted turn: the key is still live and its creator still
   * stands, and so does the user a JWT named (the caller). The refusals of `admit`.
   */
  async confirm(keyId: string, caller: AuthContext | undefined): Promise<void> {
    const found = isUuid(keyId) ? await this.configs.findKeyById(keyId) : null;
    if (!found || !isLive(found.key, found.config)) throw keyInvalid();
    const creator = await assertCreatorStands(this.standing, found.key, found.config);
    if (caller?.credentialKind === 'embed' && caller.credentialId === keyId) {
      if (!creator.manages) throw issuerNotInForce();
      if (!(await this.standing.userIsMember(caller, found.config.workspaceId))) throw noMember();
    }
  }

  private async hostUser(
    config: EmbedConfigRow,
    creator: CreatorStanding,
    token: string,
    keyId: string,
    filesBridge: boolean,
  ) {
    if (!config.trustedIssuer) {
      throw noIdentity('This embed configuration trusts no issuer: the host page cannot send a user token');
    }
    // Whoever chooses the issuer decides who the JWT names: only an owner may speak for members.
    if (!creator.manages) throw issuerNotInForce();
    const { email } = await this.hostIdentity.verify(token, config.trustedIssuer);
    // Looked up as the configuration's creator: the identity service answers signed-in callers only.
    const answer = await asConfigCreator(config, [], () =>
      this.client.call(IdentityService.method.findUserByEmail, { email }),
    );
    if (!answer.found || !answer.user) throw noMember();
    const caller = create(AuthContextSchema, {
      userId: answer.user.id,
      credentialId: keyId,
      credentialKind: 'embed',
      // The configuration's creator chose to let the host page write files: only there.
      scopes: filesBridge ? [...HOST_USER_SCOPES, 'files:write'] : [...HOST_USER_SCOPES],
      workspaceIds: [config.workspaceId],
      allWorkspaces: false,
    });
    // The JWT names an account; it acts only where that account is a member today.
    if (!(await this.standing.userIsMember(caller, config.workspaceId))) throw noMember();
    return { by: 'host-jwt', caller };
  }

  private async scopedTokenUser(config: EmbedConfigRow, sealed: string | null) {
    if (!sealed) {
      throw noIdentity("Sign-in required: send the host page's user token (Authorization: Bearer <JWT>)");
    }
    let token: string;
    try {
      token = this.box.open(sealed);
    } catch {
      throw secretUnreadable(
        "This embed key's scoped token",
        "the configuration's owner creates a new key with a scoped token, or the operator restores the previous key",
      );
    }
    const fetch = () => this.authenticateScopedToken(token);
    const { auth } = this.tokenCache ? await this.tokenCache.authenticate(token, '', fetch) : (await fetch()).caller;
    const reaches = grantReaches(auth, config.workspaceId);
    return {
      by: 'scoped-token',
      caller: create(AuthContextSchema, {
        ...auth,
        workspaceIds: reaches ? [config.workspaceId] : [],
        allWorkspaces: false,
      }),
    };
  }

  private authenticateScopedToken(token: string): Promise<FetchedAuthentication> {
    return fetchTokenAuthentication(this.client, token, '').catch((err: unknown) => {
      if (AppError.isAppError(err) && err.status === 401)
        throw noIdentity("The embed key's scoped token no longer works");
      throw err;
    });
  }

  /** Only the agent's instructions name the workspace: a rename reaches them within WORKSPACE_NAME_TTL_MS. */
  private workspaceName(config: EmbedConfigRow): Promise<{ workspaceName: string }> {
    return this.workspaceNames.get(`${config.createdBy}/${config.workspaceId}`, async () => {
      const answer = await asConfigCreator(config, ['workspaces:read'], () =>
        this.client.call(WorkspacesService.method.getWorkspace, { workspaceId: config.workspaceId }),
      ).catch(() => undefined);
      return { workspaceName: answer?.workspace?.name ?? '' };
    });
  }
}
