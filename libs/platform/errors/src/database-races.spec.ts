import { describe, expect, it } from 'vitest';
import { concurrentDeleteError, isForeignKeyViolation } from './database-input.js';

/** The shapes the errors arrive in: `pg`'s SQLSTATE, and Prisma's code (its pg adapter maps a foreign key to P2003). */
const pgError = (code: string) => Object.assign(new Error('db'), { code });
const prismaError = (code: string) => Object.assign(new Error('prisma'), { code, meta: {} });

describe('database errors of a request that lost a race with a delete', () => {
  it('answers 404 when the row to change was deleted (Prisma P2025)', () => {
    expect(concurrentDeleteError(prismaError('P2025'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('answers 409 when a row referred to was deleted (a foreign key, however it arrives)', () => {
    for (const err of [pgError('23503'), prismaError('P2003')]) {
      expect(isForeignKeyViolation(err)).toBe(true);
      expect(concurrentDeleteError(err)).toMatchObject({ status: 409, code: 'CONFLICT' });
    }
  });

  it('leaves every other error alone (it stays a 500 with an error id)', () => {
    for (const err of [pgError('23505'), prismaError('P2002'), new Error('boom'), 'text', null, undefined])
      expect(concurrentDeleteError(err)).toBeUndefined();
  });
});
