import { assertAccountAllowed, type Action } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';

/**
 * Checks an account-level action for the caller of a message and returns the caller's user id.
 * The gateway resolved the account moments before (refusing a disabled one), so a caller with a
 * user id is an active account; the scope is checked again here, so a bus caller cannot skip it.
 */
export function requireAccount(context: RequestContext, action: Action): { userId: string; tokenId: string } {
  const auth = context.auth;
  assertAccountAllowed({ auth, account: auth?.userId ? { active: true } : undefined, action });
  // The credential of a token (a PAT, or an agent's or application's grant); "" otherwise.
  const tokenId = ['pat', 'oauth', 'agent'].includes(auth!.credentialKind) ? auth!.credentialId : '';
  return { userId: auth!.userId, tokenId };
}
