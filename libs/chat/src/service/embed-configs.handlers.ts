import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EmbedConfigsService, IdentityService } from '@kw/contracts';
import { grantReaches } from '@kw/platform-access-policy';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, capReached, invalidField, notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { SECRET_BOX, type SecretBox } from '@kw/platform-secret-box';
import { APP_CONFIG } from '@kw/platform-runtime';
import { Handles, ServiceClient, type RequestOf } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { CHAT_PAGE_DEFAULT, CHAT_PAGE_MAX, EMBED_KEYS_PER_CONFIG_MAX } from '../chat-limits.js';
import {
  EmbedConfigsRepository,
  type EmbedConfigChanges,
  type EmbedConfigRow,
  type EmbedKeyChanges,
} from '../persistence/embed-configs.repository.js';
import { ExpertsRepository } from '../persistence/experts.repository.js';
import { EMBED_KEY_PREFIX, hashEmbedKey } from '../domain/embed-key.js';
import { requireAccount, type ChatCaller } from './chat-caller.js';
import {
  validConfigName,
  validContext,
  validExpiry,
  validFeatures,
  validIssuer,
  validOrigins,
  type JwksUrlPolicy,
} from './embed-config-input.js';
import { embedConfigView, embedKeyView } from './embed-config-view.js';
import { EmbedStanding } from './embed-standing.js';

type Req<M extends keyof typeof EmbedConfigsService.method> = RequestOf<typeof EmbedConfigsService, M>;

const configNotFound = () => notFound('Embed configuration');
const keyNotFound = () => notFound('Embed key');

/**
 * What lets others in on the creator's word (a trusted issuer's JWT names any member; a public
 * key serves any page) needs a creator who may manage the workspace (docs/chat.md).
 */
const managersOnly = (field: 'trustedIssuer' | 'public', what: string) =>
  new AppError({
    status: 403,
    code: ErrorCode.FORBIDDEN,
    message: `Only a member who may manage the workspace (its owner) may ${what}`,
    param: field,
  });
const issuerForManagers = () =>
  managersOnly('trustedIssuer', 'set a trusted issuer: its JWTs would name any member of the workspace');
const publicKeyForManagers = () => managersOnly('public', 'make a key public: anyone could chat over the workspace');

const allCreatorsForManagers = () =>
  new AppError({
    status: 403,
    code: ErrorCode.FORBIDDEN,
    message: "Only the workspace's owners see every configuration over it",
  });

/**
 * Embed configurations and their keys. A configuration belongs to its creator
 * (`applications:manage`) and a workspace the creator can read; a key belongs to its
 * configuration. Anything of anyone else's answers 404, like an unknown id, except to the
 * workspace's owners, who may read, list the keys of, revoke keys of and archive any
 * configuration over it (`seen`); a credential restricted to other workspaces finds nothing
 * of it, owner or not. A trusted issuer and a public key need a creator who manages the
 * workspace (EmbedStanding), here and again at every turn.
 */
@Injectable()
export class EmbedConfigsHandlers {
  private readonly jwksPolicy: JwksUrlPolicy;

  constructor(
    private readonly configs: EmbedConfigsRepository,
    private readonly experts: ExpertsRepository,
    private readonly gate: WorkspaceGate,
    private readonly standing: EmbedStanding,
    private readonly client: ServiceClient,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.jwksPolicy = { allowPrivate: config.EMBED_JWKS_ALLOW_PRIVATE === true };
  }

  @Handles(EmbedConfigsService.method.listConfigs)
  async list(input: Req<'listConfigs'>, context: RequestContext) {
    const { userId, workspaceIds } = requireAccount(context, 'applications:manage');
    const status = input.status || 'active';
    if (!['active', 'archived'].includes(status)) throw invalidField('status', 'must be active or archived');
    if (input.allCreators) {
      if (!input.workspaceId) throw invalidField('workspaceId', 'is required with allCreators');
      const manager = await this.callerStanding(context, input.workspaceId);
      if (!manager.reads) throw notFound('Workspace');
      if (!manager.manages) throw allCreatorsForManagers();
    } else if (input.workspaceId && !isUuid(input.workspaceId)) return { configs: [], totalCount: 0 };
    const limit = Math.min(Math.max(input.limit || CHAT_PAGE_DEFAULT, 1), CHAT_PAGE_MAX);
    const { rows, total } = await this.configs.page(
      input.allCreators ? undefined : userId,
      { workspaceId: input.workspaceId || undefined, status, reach: workspaceIds },
      limit,
      Math.max(input.offset, 0),
    );
    return { configs: rows.map(embedConfigView), totalCount: total };
  }

  @Handles(EmbedConfigsService.method.createConfig)
  async create(input: Req<'createConfig'>, context: RequestContext) {
    const { userId, workspaceIds } = requireAccount(context, 'applications:manage');
    const name = validConfigName(input.name);
    const features = validFeatures(input.features);
    const defaultContext = validContext(input.defaultContext);
    const trustedIssuer = input.trustedIssuer ? validIssuer(input.trustedIssuer, this.jwksPolicy) : null;
    await this.gate.authorize(context, input.workspaceId, 'chat:use');
    const id = randomUUID();
    if (
      trustedIssuer &&
      !(await this.standing.ofCreator({ id, createdBy: userId, workspaceId: input.workspaceId })).manages
    )
      throw issuerForManagers();
    const mainExpertId = await this.expertOf({ userId, workspaceIds }, input.mainExpertId, input.workspaceId);
    const row = await this.configs.insert({
      id,
      createdBy: userId,
      workspaceId: input.workspaceId,
      name,
      model: input.model,
      modelLocked: input.modelLocked,
      features,
      mainExpertId,
      stateless: input.stateless,
      systemPrompt: input.systemPrompt,
      defaultContext,
      trustedIssuer,
    });
    return { config: embedConfigView(row) };
  }

  @Handles(EmbedConfigsService.method.getConfig)
  async get(input: Req<'getConfig'>, context: RequestContext) {
    return { config: embedConfigView(await this.seen(context, input.id)) };
  }

  @Handles(EmbedConfigsService.method.updateConfig)
  async update(input: Req<'updateConfig'>, context: RequestContext) {
    const caller = requireAccount(context, 'applications:manage');
    const current = await this.owned(caller, input.id);
    if (current.status !== 'active') throw archived();
    const changes: EmbedConfigChanges = {};
    if (input.name !== undefined) changes.name = validConfigName(input.name);
    if (input.model !== undefined) changes.model = input.model;
    if (input.modelLocked !== undefined) changes.modelLocked = input.modelLocked;
    if (input.features) changes.features = validFeatures(input.features);
    if (input.mainExpertId !== undefined)
      changes.mainExpertId = await this.expertOf(caller, input.mainExpertId, current.workspaceId);
    if (input.stateless !== undefined) changes.stateless = input.stateless;
    if (input.systemPrompt !== undefined) changes.systemPrompt = input.systemPrompt;
    if (input.setDefaultContext) changes.defaultContext = validContext(input.defaultContext);
    if (input.clearTrustedIssuer) changes.trustedIssuer = null;
    else if (input.trustedIssuer) {
      changes.trustedIssuer = validIssuer(input.trustedIssuer, this.jwksPolicy);
      if (!(await this.standing.ofCreator(current)).manages) throw issuerForManagers();
    }
    const row = await this.configs.update(caller.userId, input.id, caller.workspaceIds, changes);
    if (!row) throw configNotFound();
    return { config: embedConfigView(row) };
  }

  @Handles(EmbedConfigsService.method.archiveConfig)
  async archive(input: Req<'archiveConfig'>, context: RequestContext) {
    const config = await this.seen(context, input.id);
    if (!(await this.configs.archive(config.id))) throw configNotFound();
    return {};
  }

  @Handles(EmbedConfigsService.method.listKeys)
  async listKeys(input: Req<'listKeys'>, context: RequestContext) {
    const config = await this.seen(context, input.configId);
    return { keys: (await this.configs.keysOf(config.id)).map(embedKeyView) };
  }

  @Handles(EmbedConfigsService.method.createKey)
  async createKey(input: Req<'createKey'>, context: RequestContext) {
    const caller = requireAccount(context, 'applications:manage');
    const { userId } = caller;
    const config = await this.owned(caller, input.configId);
    if (config.status !== 'active') throw archived();
    const label = input.label.trim();
    if (!label) throw invalidField('label', 'must not be empty');
    const allowedOrigins = validOrigins(input.allowedOrigins);
    // A key anyone may copy off the page is only safe if the browser's Origin limits it (spec).
    if (!input.public && allowedOrigins.length === 0) {
      throw invalidField('allowedDomains', 'a non-public key needs at least one allowed origin');
    }
    const expiresAt = validExpiry(input.expiresAt);
    if (input.public && !(await this.standing.ofCreator(config)).manages) throw publicKeyForManagers();
    const scopedTokenSealed = input.scopedToken ? this.box.seal(await this.ownToken(userId, input.scopedToken)) : null;
    const token = `${EMBED_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const key = await this.configs.insertKeyWithin(
      {
        id: randomUUID(),
        configId: config.id,
        label,
        allowedOrigins,
        public: input.public,
        expiresAt,
        tokenHash: hashEmbedKey(token),
        tokenPrefix: token.slice(0, 12),
        scopedTokenSealed,
      },
      EMBED_KEYS_PER_CONFIG_MAX,
    );
    if (!key)
      throw capReached(
        `A configuration has at most ${EMBED_KEYS_PER_CONFIG_MAX} keys that are not revoked: revoke one to make room`,
      );
    return { key: embedKeyView(key), token };
  }

  @Handles(EmbedConfigsService.method.updateKey)
  async updateKey(input: Req<'updateKey'>, context: RequestContext) {
    const config = await this.owned(requireAccount(context, 'applications:manage'), input.configId);
    const current = isUuid(input.keyId) ? await this.configs.findKey(config.id, input.keyId) : null;
    if (!current || current.revokedAt) throw keyNotFound();
    const changes: EmbedKeyChanges = {};
    if (input.label !== undefined) {
      changes.label = input.label.trim();
      if (!changes.label) throw invalidField('label', 'must not be empty');
    }
    if (input.setAllowedOrigins) changes.allowedOrigins = validOrigins(input.allowedOrigins);
    if (input.public !== undefined) changes.public = input.public;
    if (input.expiresAt !== undefined) changes.expiresAt = validExpiry(input.expiresAt);
    const isPublic = changes.public ?? current.public;
    if (!isPublic && (changes.allowedOrigins ?? current.allowedOrigins).length === 0) {
      throw invalidField('allowedDomains', 'a non-public key needs at least one allowed origin');
    }
    if (changes.public && !current.public && !(await this.standing.ofCreator(config)).manages)
      throw publicKeyForManagers();
    const key = await this.configs.updateKey(config.id, input.keyId, changes);
    if (!key) throw keyNotFound();
    return { key: embedKeyView(key) };
  }

  @Handles(EmbedConfigsService.method.revokeKey)
  async revokeKey(input: Req<'revokeKey'>, context: RequestContext) {
    const config = await this.seen(context, input.configId);
    if (!isUuid(input.keyId) || !(await this.configs.revokeKey(config.id, input.keyId))) throw keyNotFound();
    return {};
  }

  /** The caller's own configuration, over a workspace their credential reaches. Anything else: 404. */
  private async owned(caller: ChatCaller, id: string): Promise<EmbedConfigRow> {
    const row = isUuid(id) ? await this.configs.findOwned(caller.userId, id, caller.workspaceIds) : null;
    if (!row) throw configNotFound();
    return row;
  }

  /**
   * A configuration the caller may see and stop: their own, or one over a workspace they manage
   * (its owners find and revoke what members published over it), in both cases over a workspace
   * their credential reaches. Anything else: 404.
   */
  private async seen(context: RequestContext, id: string): Promise<EmbedConfigRow> {
    const { userId } = requireAccount(context, 'applications:manage');
    const row = isUuid(id) ? await this.configs.findById(id) : null;
    if (!row || !grantReaches(context.auth!, row.workspaceId)) throw configNotFound();
    if (row.createdBy === userId || (await this.callerStanding(context, row.workspaceId)).manages) return row;
    throw configNotFound();
  }

  /**
   * How the caller stands towards a workspace, as its member (the route's scope is
   * `applications:manage`; the role is what counts), within their token's workspaces.
   */
  private callerStanding(context: RequestContext, workspaceId: string) {
    const auth = context.auth!;
    if (!isUuid(workspaceId) || !grantReaches(auth, workspaceId))
      return Promise.resolve({ reads: false, manages: false });
    return this.standing.ofMember(auth.userId, workspaceId, auth.credentialId);
  }

  /** The main-agent expert: one of the caller's, over the same workspace ("" for none). */
  private async expertOf(
    caller: Pick<ChatCaller, 'userId' | 'workspaceIds'>,
    expertId: string,
    workspaceId: string,
  ): Promise<string | null> {
    if (!expertId) return null;
    const expert = isUuid(expertId) ? await this.experts.findOwned(caller.userId, expertId, caller.workspaceIds) : null;
    if (!expert || expert.workspaceId !== workspaceId) {
      throw invalidField('mainExpertId', 'must be one of your experts over the same workspace');
    }
    return expert.id;
  }

  /** A working personal access token of the caller's own (it will speak for them on the key). */
  private async ownToken(userId: string, token: string): Promise<string> {
    const caller = await this.client
      .call(IdentityService.method.authenticateToken, { token, ip: '' })
      .then((answer) => answer.caller)
      .catch((err: unknown) => {
        if (AppError.isAppError(err) && err.status < 500) return undefined;
        throw err;
      });
    if (!caller?.auth || caller.auth.userId !== userId || caller.auth.credentialKind !== 'pat') {
      throw invalidField('scopedToken', 'must be a working personal access token of yours');
    }
    return token;
  }
}

const archived = () =>
  new AppError({ status: 409, code: ErrorCode.CONFLICT, message: 'The embed configuration is archived' });
