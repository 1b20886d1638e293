import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  CreateTokenRequest,
  CreateTokenResponseSchema,
  GetTokenAnalyticsResponseSchema,
  GetTokenResponseSchema,
  ListTokensResponseSchema,
  UpdateTokenRequest,
  UpdateTokenResponseSchema,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { generateToken } from '../../domain/tokens/token-format.js';
import { CallerAccounts, type VerifiedCaller } from '../caller-accounts.js';
import { toTokenMessage } from '../mappers.js';
import type { TokenRow } from '../../persistence/rows.js';
import { TokensRepository, type TokenChanges } from '../../persistence/tokens.repository.js';
import { CredentialChanges } from '../credentials/credential-changes.js';
import { TokenUsageRecorder } from '@kw/platform-token-cache';
import {
  capExpiry,
  grantForNewToken,
  keepReachable,
  narrowedScopes,
  narrowedWorkspaces,
  parseFutureExpiry,
} from './token-grants.js';
import { ReachableWorkspaces } from './reachable-workspaces.js';
import { isUuid } from '@kw/platform-ids';

const ANALYTICS_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * The caller's personal access tokens (scope `tokens:manage`). A token of another user
 * answers exactly like one that does not exist (404).
 */
@Injectable()
export class ManageTokens {
  constructor(
    private readonly callers: CallerAccounts,
    private readonly tokens: TokensRepository,
    private readonly usage: TokenUsageRecorder,
    private readonly changes: CredentialChanges,
    private readonly reachable: ReachableWorkspaces,
  ) {}

  async list(context: RequestContext): Promise<MessageInitShape<typeof ListTokensResponseSchema>> {
    const { user } = await this.callers.require(context, 'tokens:manage');
    return { tokens: (await this.tokens.listOwned(user.id)).map(toTokenMessage) };
  }

  async create(
    input: CreateTokenRequest,
    context: RequestContext,
    now = new Date(),
  ): Promise<MessageInitShape<typeof CreateTokenResponseSchema>> {
    const caller = await this.callers.require(context, 'tokens:manage');
    const narrowed = grantForNewToken(
      { scopes: input.scopes, allWorkspaces: input.allWorkspaces, workspaceIds: input.workspaceIds },
      caller.auth,
      caller.user,
    );
    const grant = narrowed.allWorkspaces
      ? narrowed
      : keepReachable(narrowed, await this.reachable.of(narrowed.workspaceIds));
    const requestedExpiry = input.expiresAt === undefined ? null : parseFutureExpiry(input.expiresAt, now);
    const expiresAt = capExpiry(requestedExpiry, await this.creatorExpiry(caller));
    const secret = generateToken();
    const row = await this.tokens.create({
      userId: caller.user.id,
      name: input.name.trim(),
      tokenHash: secret.tokenHash,
      displayPrefix: secret.displayPrefix,
      scopes: grant.scopes,
      allWorkspaces: grant.allWorkspaces,
      workspaceIds: grant.workspaceIds,
      expiresAt,
    });
    return {
      tokenInfo: toTokenMessage(row),
      token: secret.token,
      droppedScopes: grant.droppedScopes,
      droppedWorkspaceIds: grant.droppedWorkspaceIds,
    };
  }

  async get(id: string, context: RequestContext): Promise<MessageInitShape<typeof GetTokenResponseSchema>> {
    const { user } = await this.callers.require(context, 'tokens:manage');
    return { tokenInfo: toTokenMessage(await this.owned(id, user.id)) };
  }

  async update(
    input: UpdateTokenRequest,
    context: RequestContext,
    now = new Date(),
  ): Promise<MessageInitShape<typeof UpdateTokenResponseSchema>> {
    const caller = await this.callers.require(context, 'tokens:manage');
    const token = await this.owned(input.id, caller.user.id);
    const changes: TokenChanges = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (input.expiresAt !== undefined)
      changes.expiresAt = capExpiry(parseFutureExpiry(input.expiresAt, now), await this.creatorExpiry(caller));
    if (input.scopes) changes.scopes = narrowedScopes(input.scopes.values, token.scopes);
    if (input.workspaceIds) {
      changes.workspaceIds = narrowedWorkspaces(input.workspaceIds.values, token);
      changes.allWorkspaces = false;
    }
    if (Object.keys(changes).length === 0) return { tokenInfo: toTokenMessage(token) };
    const updated = await this.tokens.update(token.id, changes);
    await this.changes.tokensChanged(token.id);
    return { tokenInfo: toTokenMessage(updated) };
  }

  async revoke(id: string, context: RequestContext, now = new Date()): Promise<void> {
    const { user } = await this.callers.require(context, 'tokens:manage');
    if (!isUuid(id) || !(await this.tokens.revoke(id, user.id, now))) throw notFound('Token');
    await this.changes.tokensChanged(id);
  }

  async analytics(
    id: string,
    context: RequestContext,
    now = new Date(),
  ): Promise<MessageInitShape<typeof GetTokenAnalyticsResponseSchema>> {
    const { user } = await this.callers.require(context, 'tokens:manage');
    // This replica's uses not yet written (this very request's among them) count too.
    await this.usage.flush();
    const token = await this.owned(id, user.id);
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const since = new Date(today - (ANALYTICS_DAYS - 1) * DAY_MS);
    const usage = await this.tokens.usageSince(token.id, since);
    const requestsPerDay = Array.from({ length: ANALYTICS_DAYS }, (_, i) => {
      const day = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      return { day, requests: usage.get(day) ?? 0 };
    });
    return {
      requestsPerDay,
      lastUsedAt: token.lastUsedAt?.toISOString(),
      lastUsedIp: token.lastUsedIp ?? undefined,
      totalRequests: await this.tokens.totalRequests(token.id),
    };
  }

  private async owned(id: string, userId: string): Promise<TokenRow> {
    const token = isUuid(id) ? await this.tokens.findOwned(id, userId) : null;
    if (!token) throw notFound('Token');
    return token;
  }

  /** The expiry of the token the caller authenticated with (sessions have none that binds). */
  private async creatorExpiry(caller: VerifiedCaller): Promise<Date | null> {
    if (caller.auth.credentialKind !== 'pat') return null;
    const creator = await this.tokens.findOwned(caller.auth.credentialId, caller.user.id);
    return creator?.expiresAt ?? null;
  }
}
