import { Injectable } from '@nestjs/common';
import { WebSearchAccessService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, ServiceClient, type RequestOf } from '@kw/platform-transport';
import { WebSearchGrantsRepository } from '../persistence/web-search-grants.repository.js';
import { requireAccount } from './chat-caller.js';
import { requireExistingUser, requirePlatformAdmin } from './platform-admin.js';
import { Plans } from './plans/plans.js';

type Req<M extends keyof typeof WebSearchAccessService.method> = RequestOf<typeof WebSearchAccessService, M>;

/**
 * Web-search access is an entitlement of the account: its plan's (docs/plans.md), or a
 * platform administrator's grant to the account (what a self-hosted deployment uses).
 */
@Injectable()
export class WebSearchAccessHandlers {
  constructor(
    private readonly grants: WebSearchGrantsRepository,
    private readonly client: ServiceClient,
    private readonly plans: Plans,
  ) {}

  @Handles(WebSearchAccessService.method.checkAccess)
  async check(_input: Req<'checkAccess'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'chat:use');
    if ((await this.plans.planOf(userId)).entitlements.webSearch) return { allowed: true };
    return { allowed: await this.grants.has(userId) };
  }

  @Handles(WebSearchAccessService.method.grantAccess)
  async grant(input: Req<'grantAccess'>, context: RequestContext) {
    const adminId = await requirePlatformAdmin(this.client, context);
    await requireExistingUser(this.client, input.userId);
    await this.grants.grant(input.userId, adminId);
    return {};
  }

  @Handles(WebSearchAccessService.method.revokeAccess)
  async revoke(input: Req<'revokeAccess'>, context: RequestContext) {
    await requirePlatformAdmin(this.client, context);
    await requireExistingUser(this.client, input.userId);
    await this.grants.revoke(input.userId);
    return {};
  }
}
