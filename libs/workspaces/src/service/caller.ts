import type { RequestContext } from '@kw/platform-context';
import {
  assertAccountAllowed,
  grantReaches,
  type AccountState,
  type Action,
  type CallerAuth,
} from '@kw/platform-access-policy';
import { AppError, ErrorCode } from '@kw/platform-errors';

export interface Caller {
  auth: CallerAuth | undefined;
  /**
   * The gateway resolved the account (and refused a disabled one) moments before this
   * message was sent, so a caller with a user id is an active account.
   */
  account: AccountState | undefined;
}

export function callerOf(context: RequestContext): Caller {
  const auth = context.auth;
  return { auth, account: auth?.userId ? { active: true } : undefined };
}

/** Checks an account-level action (caller and scope) and returns the caller's user id. */
export function assertAccount(context: RequestContext, action: Action): { userId: string; auth: CallerAuth } {
  const { auth, account } = callerOf(context);
  assertAccountAllowed({ auth, account, action });
  return { userId: auth!.userId, auth: auth! };
}

/** Whether the credential reaches this workspace at all (its workspace restriction). */
export function tokenReaches(auth: CallerAuth, workspaceId: string): boolean {
  return grantReaches(auth, workspaceId);
}

/**
 * Refuses (403) a credential restricted to a list of workspaces: it acts in those only, and
 * `doing` (creating a workspace, managing hosted zones) reaches beyond any list.
 */
export function assertAllWorkspaces(auth: CallerAuth, doing: string): void {
  if (auth.allWorkspaces) return;
  throw new AppError({
    status: 403,
    code: ErrorCode.FORBIDDEN,
    message: `This credential is restricted to a list of workspaces, so it cannot ${doing}; use a credential for all of your workspaces`,
  });
}
