import { IdentityService } from '@kw/contracts';
import { assertAccountAllowed } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import type { ServiceClient } from '@kw/platform-transport';

/**
 * The caller must hold scope `admin` and be a platform administrator now: the account's flag is
 * asked of agent-auth, which owns accounts, at the time of the call. Answers the caller's id.
 */
export async function requirePlatformAdmin(client: ServiceClient, context: RequestContext): Promise<string> {
  const auth = context.auth;
  const [user] = auth?.userId ? (await client.call(IdentityService.method.getUsers, { ids: [auth.userId] })).users : [];
  assertAccountAllowed({
    auth,
    account: user ? { active: user.status === 'active', platformAdmin: user.platformAdmin } : undefined,
    action: 'admin',
  });
  return auth!.userId;
}

/** 404 unless an account has this id. */
export async function requireExistingUser(client: ServiceClient, userId: string): Promise<void> {
  const found = isUuid(userId) ? (await client.call(IdentityService.method.getUsers, { ids: [userId] })).users : [];
  if (found.length === 0) throw notFound('User');
}
