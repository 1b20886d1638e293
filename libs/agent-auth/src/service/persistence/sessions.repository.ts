import { Injectable } from '@nestjs/common';
import { IdentityDatabase } from './identity-database.js';
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
  constructor(private readonly db: IdentityDatabase) {}

  create(session: NewSession): Promise<SessionRow> {
    return this.db.client.session.create({ data: session });
  }

  findByHash(tokenHash: string): Promise<(SessionRow & { user: UserRow }) | null> {
    return this.db.client.session.findUnique({ where: { tokenHash }, include: { user: true } });
  }

  findOwned(id: string, userId: string): Promise<SessionRow | null> {
    return this.db.client.session.findFirst({ where: { id, userId, revokedAt: null } });
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.client.session.update({ where: { id }, data: { lastSeenAt: at } });
  }

  async revoke(id: string, userId: string, at: Date): Promise<void> {
    await this.db.client.session.updateMany({ where: { id, userId, revokedAt: null }, data: { revokedAt: at } });
  }
}
