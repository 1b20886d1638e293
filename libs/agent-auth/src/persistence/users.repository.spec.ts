import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ControlPrismaClient } from '@kw/platform-persistence';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { UsersRepository } from './users.repository.js';

/** An account's status, on real Postgres: the platform always keeps an active administrator. */
describeWith(['postgres'], 'account status (real Postgres)', () => {
  let database: MigratedTestDatabase<'control'>;
  let pool: pg.Pool;
  let db: ControlPrismaClient;
  let users: UsersRepository;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_users_status', 'control');
    ({ pool, prisma: db } = database);
    users = new UsersRepository(db, { pool });
  });
  beforeEach(async () => {
    await pool.query('TRUNCATE control.users CASCADE');
  });
  afterAll(() => database?.close());

  const account = async (email: string, platformAdmin: boolean) =>
    (await db.user.create({ data: { email, displayName: email, platformAdmin } })).id;

  it('disables and re-enables an account; unknown ids answer null', async () => {
    await account('root@example.com', true);
    const ada = await account('ada@example.com', false);
    expect(await users.setStatus(ada, 'disabled')).toMatchObject({ id: ada, status: 'disabled' });
    expect(await users.setStatus(ada, 'active')).toMatchObject({ id: ada, status: 'active' });
    expect(await users.setStatus('00000000-0000-4000-8000-000000000000', 'disabled')).toBeNull();
    expect(await users.setStatus('not-a-uuid', 'disabled')).toBeNull();
  });

  it('never disables the last active administrator, even when two disable each other at once', async () => {
    const only = await account('root@example.com', true);
    expect(await users.setStatus(only, 'disabled')).toBe('last-admin');
    expect((await users.findById(only))!.status).toBe('active');

    const second = await account('second@example.com', true);
    const outcomes = await Promise.all([users.setStatus(only, 'disabled'), users.setStatus(second, 'disabled')]);
    expect(outcomes.filter((o) => o === 'last-admin')).toHaveLength(1);
    const active = await db.user.count({ where: { platformAdmin: true, status: 'active' } });
    expect(active).toBe(1);
  });
});
