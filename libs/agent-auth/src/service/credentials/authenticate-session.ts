import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { AuthenticateSessionResponseSchema } from '@kw/contracts';
import { toUserMessage } from '../mappers.js';
import { SessionsRepository } from '../../persistence/sessions.repository.js';
import { invalidCredential } from './credential-errors.js';
import { sha256Hex } from './session-secrets.js';

/** Writing last_seen_at on every request would make each page view a write; once a minute is enough. */
const TOUCH_EVERY_MS = 60_000;
const SESSION_VALUE = /^[A-Za-z0-9_-]{43}$/;

/**
 * AuthenticateSession: a session cookie to the caller. Sessions act with every scope (`*`)
 * in every workspace of the user: they are the user at the dashboard.
 */
@Injectable()
export class AuthenticateSession {
  constructor(private readonly sessions: SessionsRepository) {}

  async execute(
    sessionToken: string,
    now = new Date(),
  ): Promise<MessageInitShape<typeof AuthenticateSessionResponseSchema>> {
    if (!SESSION_VALUE.test(sessionToken)) throw invalidCredential();
    const session = await this.sessions.findByHash(sha256Hex(sessionToken));
    if (!session || session.revokedAt || session.expiresAt <= now || session.user.status !== 'active')
      throw invalidCredential();
    if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) await this.sessions.touch(session.id, now);
    return {
      caller: {
        auth: {
          userId: session.userId,
          credentialId: session.id,
          credentialKind: 'session',
          scopes: ['*'],
          allWorkspaces: true,
          workspaceIds: [],
        },
        user: toUserMessage(session.user),
      },
      csrfTokenHash: session.csrfTokenHash,
    };
  }
}
