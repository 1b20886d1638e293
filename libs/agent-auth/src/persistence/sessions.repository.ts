import { Inject, Injectable } from '@nestjs/common';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import type { SessionRow, UserRow } from './rows.js';

export interface NewSession {
  userId: string;
  tokenHash: string;
  csrfTokenHash: string;
  ip: string | null;
  userAgent: string | null;
  expiresAt: Date;
}

/** Where AuthenticateSession looks sessions up. */
export interface SessionStore {
  findByHash(tokenHash: string): Promise<(SessionRow & { user: UserRow }) | null>;
  touch(id: string, at: Date): Promise<void>;
}

/** Browser sessions; only hashes of the cookie value and of the CSRF token are stored. */
@Injectable()
export class SessionsRepository implements SessionStore {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  create(session: NewSession): Promise<SessionRow> {
    return this.db.session.create({ data: session });
  }

  findByHash(tokenHash: string): Promise<(SessionRow & { user: UserRow }) | null> {
    return this.db.session.findUnique({ where: { tokenHash }, include: { user: true } });
  }

  findOwned(id: string, userId: string): Promise<SessionRow | null> {
    return this.db.session.findFirst({ where: { id, userId, revokedAt: null } });
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.session.update({ where: { id }, data: { lastSeenAt: at } });
  }

  async revoke(id: string, userId: string, at: Date): Promise<void> {
    await this.db.session.updateMany({ where: { id, userId, revokedAt: null }, data: { revokedAt: at } });
  }

  /** Ends every browser session of the user (a security event asked the person to sign in again). */
  async revokeAllOfUser(userId: string, at: Date): Promise<void> {
    await this.db.session.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: at } });
  }
}
