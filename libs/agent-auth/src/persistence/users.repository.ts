import { Inject, Injectable } from '@nestjs/common';
import { isUuid } from '@kw/platform-ids';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import type { UserRow } from './rows.js';

export interface NewUser {
  email: string;
  displayName: string;
  passwordHash: string | null;
  platformAdmin?: boolean;
}

/** A user row as Prisma would give it. */
const USER_COLUMNS = `id::text AS id, email, display_name AS "displayName", password_hash AS "passwordHash", status,
  platform_admin AS "platformAdmin", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Accounts. Emails are stored lower-cased (callers normalise them). */
@Injectable()
export class UsersRepository {
  constructor(
    @Inject(IDENTITY_DB) private readonly db: IdentityDb,
    /** The process's pool (never null here: IDENTITY_DB refuses to start without one). */
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /** The account behind most checks of a caller (agent tokens, grants, OAuth): a plain statement (decision 0008). */
  async findById(id: string): Promise<UserRow | null> {
    if (!isUuid(id)) return null;
    const { rows } = await this.database.pool.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM control.users WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The account of a sign-in or of an identity assertion (every token exchange): a plain statement too. */
  async findByEmail(email: string): Promise<UserRow | null> {
    const { rows } = await this.database.pool.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM control.users WHERE email = $1`,
      [email],
    );
    return rows[0] ?? null;
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

  /** Disables the account: every credential of it stops working at the next check. */
  async disable(id: string): Promise<void> {
    await this.db.user.updateMany({ where: { id, status: 'active' }, data: { status: 'disabled' } });
  }

  async isEmpty(): Promise<boolean> {
    return (await this.db.user.count()) === 0;
  }

  /**
   * Creates the first account (and its token) only if there is no account yet. Processes
   * starting together serialise on a table lock, so exactly one of them creates it.
   * Answers whether this call created it.
   */
  createFirst(user: NewUser, token?: FirstToken): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('LOCK TABLE control.users IN EXCLUSIVE MODE');
      if ((await tx.user.count()) > 0) return false;
      const created = await tx.user.create({ data: { ...user, platformAdmin: user.platformAdmin ?? false } });
      if (token) {
        await tx.personalAccessToken.create({
          data: { userId: created.id, ...token, allWorkspaces: true, workspaceIds: [] },
        });
      }
      return true;
    });
  }
}

/** The first account's token: every scope, every workspace. */
export interface FirstToken {
  name: string;
  tokenHash: string;
  displayPrefix: string;
  scopes: string[];
}
