import { Injectable } from '@nestjs/common';
import { assertAccountAllowed, type Action } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { AuthContext } from '@kw/contracts';
import { UsersRepository } from '../persistence/users.repository.js';
import type { UserRow } from '../persistence/rows.js';

export interface VerifiedCaller {
  auth: AuthContext;
  user: UserRow;
}

/**
 * Re-checks, on the service side, that the caller of a message may perform an account-level
 * action: the auth context from the message headers plus the account as it is NOW (a disabled
 * account or a missing scope is refused even if the gateway let the request through).
 */
@Injectable()
export class CallerAccounts {
  constructor(private readonly users: UsersRepository) {}

  async require(context: RequestContext, action: Action): Promise<VerifiedCaller> {
    const auth = context.auth;
    const user = auth?.userId ? await this.users.findById(auth.userId) : null;
    assertAccountAllowed({
      auth,
      account: user ? { active: user.status === 'active', platformAdmin: user.platformAdmin } : undefined,
      action,
    });
    return { auth: auth!, user: user! };
  }

  /** Only that the caller is signed in with an active account: for questions about the credential itself. */
  async requireActive(context: RequestContext): Promise<VerifiedCaller> {
    const auth = context.auth;
    const user = auth?.userId ? await this.users.findById(auth.userId) : null;
    if (!auth || !user || user.status !== 'active') {
      throw new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: 'Authentication required' });
    }
    return { auth, user };
  }
}
