import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { SignInResponseSchema } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { APP_CONFIG } from '@kw/platform-runtime';
import { CredentialChanges } from './credential-changes.js';
import { UNMATCHABLE_HASH, verifyPassword } from './password-hasher.js';
import { toUserMessage } from '../mappers.js';
import { SessionsRepository } from '../../persistence/sessions.repository.js';
import { UsersRepository } from '../../persistence/users.repository.js';
import { newSecret, sha256Hex } from './session-secrets.js';
import { canonicalEmail } from '../../domain/accounts/email.js';

const wrongCredentials = (): AppError =>
  new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: 'The email or password is incorrect' });

/** Email + password to a new browser session; every failure looks (and takes) the same. */
@Injectable()
export class SignIn {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(
    input: { email: string; password: string; ip: string; userAgent: string },
    now = new Date(),
  ): Promise<MessageInitShape<typeof SignInResponseSchema>> {
    const user = await this.users.findByEmail(canonicalEmail(input.email));
    // Verify against a dummy hash for unknown accounts so the response time does not reveal them.
    const matches = await verifyPassword(input.password, user?.passwordHash ?? UNMATCHABLE_HASH);
    if (!user || !user.passwordHash || !matches || user.status !== 'active') throw wrongCredentials();

    const sessionToken = newSecret();
    const csrfToken = newSecret();
    const expiresAt = new Date(now.getTime() + this.config.SESSION_TTL_HOURS * 3_600_000);
    await this.sessions.create({
      userId: user.id,
      tokenHash: sha256Hex(sessionToken),
      csrfTokenHash: sha256Hex(csrfToken),
      ip: input.ip || null,
      userAgent: input.userAgent.slice(0, 512) || null,
      expiresAt,
    });
    return { user: toUserMessage(user), sessionToken, csrfToken, expiresAt: expiresAt.toISOString() };
  }
}

/** SignOut: revokes the session the request was made with (session credentials only), and its handoff tokens. */
@Injectable()
export class SignOut {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly changes: CredentialChanges,
  ) {}

  async execute(context: RequestContext, now = new Date()): Promise<void> {
    const auth = context.auth;
    if (!auth?.userId)
      throw new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: 'Authentication required' });
    if (auth.credentialKind !== 'session')
      throw new AppError({ status: 403, code: ErrorCode.FORBIDDEN, message: 'Only a browser session can sign out' });
    await this.sessions.revoke(auth.credentialId, auth.userId, now);
    await this.changes.tokensChanged(auth.credentialId);
  }
}
