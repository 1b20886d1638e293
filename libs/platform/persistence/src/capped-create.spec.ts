import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { createBelowCap } from './capped-create.js';
import { sqlTransaction, type SqlExecutor } from './sql-transaction.js';

/**
 * A cap under creates at the same instant, on real Postgres with a pool of eight connections.
 * The count is slowed down (pg_sleep) so that every create counts while the others do: without
 * the lock all of them see room and the cap is passed (checked by removing the lock).
 */
describeWith(['postgres'], 'createBelowCap (count and create under an advisory lock)', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase('kw_capped_create');
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url, max: 8 });
    await pool.query('CREATE TABLE kept (owner text NOT NULL, n int NOT NULL)');
  });
  afterAll(async () => {
    await pool?.end();
    await drop?.();
  });

  const countOf = async (tx: SqlExecutor, owner: string) => {
    const [row] = await tx.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM kept, pg_sleep(0.05) WHERE owner = ${owner}`;
    return row.n;
  };
  const createFor = (owner: string, n: number, max: number) =>
    sqlTransaction(pool, (tx) =>
      createBelowCap(tx, { lockKey: `kept-of:${owner}`, max, count: () => countOf(tx, owner) }, async () => {
        await tx.$executeRaw`INSERT INTO kept (owner, n) VALUES (${owner}, ${n})`;
        return n;
      }),
    );
  const kept = async (owner: string) =>
    (await pool.query('SELECT count(*)::int AS n FROM kept WHERE owner = $1', [owner])).rows[0].n;

  it('keeps exactly max when eight creates race for the last places, and answers null to the rest', async () => {
    await createFor('ada', 0, 5);
    await createFor('ada', 1, 5);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => createFor('ada', 10 + i, 5)));
    expect(answers.filter((a) => a !== null)).toHaveLength(3);
    expect(answers.filter((a) => a === null)).toHaveLength(5);
    expect(await kept('ada')).toBe(5);
    expect(await createFor('ada', 99, 5)).toBeNull();
  });

  it("counts each owner apart: one owner's full cap refuses nobody else", async () => {
    const answers = await Promise.all(
      ['bo', 'cy', 'bo', 'cy', 'bo', 'cy'].map((owner, i) => createFor(owner, i, 2).then((a) => [owner, a])),
    );
    expect(
      answers
        .filter(([, a]) => a !== null)
        .map(([owner]) => owner)
        .sort(),
    ).toEqual(['bo', 'bo', 'cy', 'cy']);
    expect([await kept('bo'), await kept('cy')]).toEqual([2, 2]);
  });

  it('writes nothing when the create fails, and the lock goes with the transaction', async () => {
    const failing = sqlTransaction(pool, (tx) =>
      createBelowCap(tx, { lockKey: 'kept-of:dee', max: 1, count: () => countOf(tx, 'dee') }, async () => {
        await tx.$executeRaw`INSERT INTO kept (owner, n) VALUES ('dee', 1)`;
        throw new Error('the second write of the create failed');
      }),
    );
    await expect(failing).rejects.toThrow('second write');
    expect(await kept('dee')).toBe(0);
    expect(await createFor('dee', 2, 1)).toBe(2);
  });
});
