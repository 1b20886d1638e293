import { Inject, Injectable } from '@nestjs/common';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import type { UserRow } from './rows.js';

export interface NewUser {
  email: string;
  displayName: string;
  passwordHash: string | null;
  platformAdmin?: boolean;
}

/** Accounts. Emails are stored lower-cased (callers normalise them). */
@Injectable()
export class UsersRepository {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  findById(id: string): Promise<UserRow | null> {
    return this.db.user.findUnique({ where: { id } });
  }

  findByEmail(email: string): Promise<UserRow | null> {
    return this.db.user.findUnique({ where: { email } });
  }

  findManyByIds(ids: string[]): Promise<UserRow[]> {
    return this.db.user.findMany({ where: { id: { in: ids } } });
  }

  create(user: NewUser): Promise<UserRow> {
    return this.db.user.create({ data: { ...user, platformAdmin: user.platformAdmin ?? false } });
  }

  updateDisplayName(id: string, displayName: string): Promise<UserRow> {
    return this.db.user.update({ where: { id }, data: { displayName } });
  }
}
