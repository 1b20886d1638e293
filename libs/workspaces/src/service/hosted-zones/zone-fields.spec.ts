import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { ZONE_NAME_MAX, ZONE_REGION_MAX } from '../../workspaces-limits.js';
import { checkRegion, checkZoneName } from './zone-fields.js';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (AppError.isAppError(err)) return { status: err.status, code: err.code, details: err.details };
    throw err;
  }
  throw new Error('not refused');
};

describe('zone fields', () => {
  it('count characters, not UTF-16 units: a name or region of emoji up to the limit is kept', () => {
    expect(checkZoneName('🏔'.repeat(ZONE_NAME_MAX))).toBe('🏔'.repeat(ZONE_NAME_MAX));
    expect(checkRegion(` ${'🌍'.repeat(ZONE_REGION_MAX)} `)).toBe('🌍'.repeat(ZONE_REGION_MAX));
  });

  it('refuse one character more, or a blank value, as VALIDATION_FAILED naming the field', () => {
    for (const [field, run] of [
      ['name', () => checkZoneName('🏔'.repeat(ZONE_NAME_MAX + 1))],
      ['name', () => checkZoneName('   ')],
      ['region', () => checkRegion('a'.repeat(ZONE_REGION_MAX + 1))],
      ['region', () => checkRegion('')],
    ] as const) {
      const refused = refusal(run);
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(JSON.stringify(refused.details)).toContain(`"${field}"`);
    }
  });
});
