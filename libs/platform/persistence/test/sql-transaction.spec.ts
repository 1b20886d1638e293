import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { Prisma } from '../src/generated/data/client.js';
import { sqlTransaction } from '../src/sql-transaction.js';
import { PoolInsideTransactionError, guardPool } from '../src/transaction-rule.js';

describeWith(['postgres'], 'sqlTransaction (plain pg, Prisma’s raw API)', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase('kw_sql_tx');
    drop = database.drop;
    pool = guardPool(new pg.Pool({ connectionString: database.url, max: 3 }));
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)');
  });
  afterAll(async () => {
    await pool?.end();
    await drop?.();
  });
  beforeEach(() => pool.query('TRUNCATE items'));

  const names = async () => (await pool.query('SELECT name FROM items ORDER BY id')).rows.map((r) => r.name);

  it('commits what the tagged templates and positional statements wrote, and returns counts and rows', async () => {
    const result = await sqlTransaction(pool, async (tx) => {
      const inserted = await tx.$executeRaw`INSERT INTO items VALUES (${1}, ${'one'}), (${2}, ${"it's two"})`;
      await tx.$executeRawUnsafe('INSERT INTO items VALUES ($1, $2)', 3, 'three');
      const filter = Prisma.sql`id >= ${2}`;
      const rows = await tx.$queryRaw<Array<{ name: string }>>`SELECT name FROM items WHERE ${filter} ORDER BY id`;
      return { inserted, rows };
    });
    expect(result).toEqual({ inserted: 2, rows: [{ name: "it's two" }, { name: 'three' }] });
    expect(await names()).toEqual(['one', "it's two", 'three']);
  });

  it('rolls everything back when the work throws, and rethrows', async () => {
    await expect(
      sqlTransaction(pool, async (tx) => {
        await tx.$executeRaw`INSERT INTO items VALUES (${1}, ${'one'})`;
        await tx.$executeRaw`INSERT INTO items VALUES (${1}, ${'duplicate'})`;
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await names()).toEqual([]);
    // The connection went back to the pool clean.
    await sqlTransaction(pool, async (tx) => tx.$executeRaw`INSERT INTO items VALUES (${5}, ${'five'})`);
    expect(await names()).toEqual(['five']);
  });

  it('refuses the pool inside the transaction (the transaction rule)', async () => {
    await expect(sqlTransaction(pool, () => pool.query('SELECT 1'))).rejects.toBeInstanceOf(PoolInsideTransactionError);
  });
});
