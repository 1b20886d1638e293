import { describe, expect, it } from 'vitest';
import { isTransactionConflict, retryOnConflict } from './transaction-conflict.js';

describe('isTransactionConflict', () => {
  it('recognises a deadlock or serialization failure however it is reported', () => {
    expect(isTransactionConflict({ code: '40P01' })).toBe(true); // pg
    expect(isTransactionConflict({ code: '40001' })).toBe(true);
    expect(isTransactionConflict({ name: 'DriverAdapterError', cause: { kind: 'postgres', code: '40P01' } })).toBe(
      true,
    );
    // A Prisma raw query, as it reported a real deadlock.
    expect(
      isTransactionConflict({
        code: 'P2010',
        meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode: '40P01' } } },
      }),
    ).toBe(true);
    expect(isTransactionConflict({ code: 'P2034' })).toBe(true);
  });

  it('takes nothing else for one', () => {
    for (const err of [
      undefined,
      null,
      'deadlock',
      new Error('deadlock detected'),
      { code: '23505' },
      { code: 'P2002' },
    ])
      expect(isTransactionConflict(err)).toBe(false);
  });
});

describe('retryOnConflict', () => {
  it('runs the transaction again after a conflict, at most the attempts given', async () => {
    let runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs++;
        if (runs < 3) throw { code: '40P01' };
        return 'done';
      }),
    ).resolves.toBe('done');
    runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs++;
        throw { code: '40001' };
      }, 2),
    ).rejects.toEqual({ code: '40001' });
    expect(runs).toBe(2);
  });

  it('never runs it again after another failure', async () => {
    let runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs++;
        throw new Error('invalid_grant');
      }),
    ).rejects.toThrow('invalid_grant');
    expect(runs).toBe(1);
  });
});
