import { assertAccountAllowed } from '@kw/platform-access-policy';
import type { AuthContext } from '@kw/contracts';

/**
 * The OpenAI-compatible routes need the `chat:use` scope. Checked at the edge because model
 * calls run here; the account was checked active by the guard moments before.
 */
export function assertChatAllowed(auth: AuthContext): void {
  assertAccountAllowed({ auth, account: { active: true }, action: 'chat:use' });
}
