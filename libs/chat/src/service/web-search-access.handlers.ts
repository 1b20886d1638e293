import { Injectable } from '@nestjs/common';
import { IdentityService, WebSearchAccessService } from '@kw/contracts';
import { assertAccountAllowed } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { Handles, ServiceClient, type RequestOf } from '@kw/platform-transport';
import { WebSearchGrantsRepository } from '../persistence/web-search-grants.repository.js';
import { requireAccount } from './chat-caller.js';

type Req<M extends keyof typeof WebSearchAccessService.method> = RequestOf<typeof WebSearchAccessService, M>;

/**
 * Web-search access is an entitlement of the account. Until plans exist, a platform
 * administrator grants and revokes it; the account's admin flag is asked of agent-auth, which
 * owns accounts, at the time of the call.
 */
@Injectable()
export class WebSearchAccessHandlers {
  constructor(
    private readonly grants: WebSearchGrantsRepository,
    private readonly client: ServiceClient,
  ) {}

  @Handles(WebSearchAccessService.method.checkAccess)
  async check(_input: Req<'checkAccess'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'chat:use');
    return { allowed: await this.grants.has(userId) };
  }

  @Handles(WebSearchAccessService.method.grantAccess)
  async grant(input: Req<'grantAccess'>, context: RequestContext) {
    const adminId = await this.requireAdmin(context);
    await this.requireUser(input.userId);
    await this.grants.grant(input.userId, adminId);
    return {};
  }

  @Handles(WebSearchAccessService.method.revokeAccess)
  async revoke(input: Req<'revokeAccess'>, context: RequestContext) {
    await this.requireAdmin(context);
    await this.requireUser(input.userId);
    await this.grants.revoke(input.userId);
    return {};
  }

  private async requireAdmin(context: RequestContext): Promise<string> {
    const auth = context.auth;
    const [user] = auth?.userId
      ? (await this.client.call(IdentityService.method.getUsers, { ids: [auth.userId] })).users
      : [];
    assertAccountAllowed({
      auth,
      account: user ? { active: user.status === 'active', platformAdmin: user.platformAdmin } : undefined,
      action: 'admin',
    });
    return auth!.userId;
  }

  private async requireUser(userId: string): Promise<void> {
    const found = isUuid(userId)
      ? (await this.client.call(IdentityService.method.getUsers, { ids: [userId] })).users
      : [];
    if (found.length === 0) throw notFound('User');
  }
}
