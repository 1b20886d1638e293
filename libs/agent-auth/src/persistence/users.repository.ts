import { Inject, Injectable } from '@nestjs/common';
import { isUuid } from '@kw/platform-ids';
import { sqlTransaction, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import type { UserRow } from './rows.js';

export interface NewUser {
  email: string;
  displayName: string;
  passwordHash: string | null;
  platformAdmin?: boolean;
}

export interface UserFilter {
  email?: string;
  status?: 'active' | 'disabled';
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

  /** Accounts, newest first: part of the email (case-insensitive) and a status narrow them. */
  async list(filter: UserFilter, limit: number, offset: number): Promise<{ users: UserRow[]; totalCount: number }> {
    const where = {
      ...(filter.email ? { email: { contains: filter.email.toLowerCase() } } : {}),
      ...(filter.status ? { status: filter.status } : {}),
    };
    const [users, totalCount] = await Promise.all([
      this.db.user.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset }),
      this.db.user.count({ where }),
    ]);
    return { users, totalCount };
  }

  /**
   * Sets the account's status, unless that would leave no active platform administrator. The
   * active administrators' rows are locked first, so two administrators disabling each other at
   * once cannot both succeed. Answers the row, `last-admin`, or null for an unknown account.
   */
  async setStatus(id: string, status: 'active' | 'disabled'): Promise<UserRow | 'last-admin' | null> {
    if (!isUuid(id)) return null;
    return sqlTransaction(this.database.pool, async (tx) => {
      if (status === 'disabled') {
        const admins = await tx.$queryRawUnsafe<Array<{ id: string }>>(
          `SELECT id::text AS id FROM control.users WHERE platform_admin AND status = 'active' ORDER BY id FOR UPDATE`,
        );
        if (admins.length === 1 && admins[0]!.id === id) return 'last-admin';
      }
      const rows = await tx.$queryRawUnsafe<UserRow[]>(
        `UPDATE control.users SET status = $2, updated_at = now() WHERE id = $1::uuid RETURNING ${USER_COLUMNS}`,
        id,
        status,
      );
      return rows[0] ?? null;
    });
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
