import { assertAccountAllowed, grantedWorkspaceIds, type Action } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';

export interface ChatCaller {
  userId: string;
  /** The credential of a token (a PAT, or an agent's or application's grant); "" otherwise. */
  tokenId: string;
  /**
   * The workspaces the credential is restricted to, or undefined when it reaches all of the
   * user's. What the user owns over any other workspace is invisible to it (docs/chat.md).
   */
  workspaceIds: readonly string[] | undefined;
}

/**
 * Checks an account-level action for the caller of a message and returns who the caller is.
 * The gateway resolved the account moments before (refusing a disabled one), so a caller with a
 * user id is an active account; the scope is checked again here, so a bus caller cannot skip it.
 */
export function requireAccount(context: RequestContext, action: Action): ChatCaller {
  const auth = context.auth;
  assertAccountAllowed({ auth, account: auth?.userId ? { active: true } : undefined, action });
  const tokenId = ['pat', 'oauth', 'agent'].includes(auth!.credentialKind) ? auth!.credentialId : '';
  return { userId: auth!.userId, tokenId, workspaceIds: grantedWorkspaceIds(auth!) };
}
