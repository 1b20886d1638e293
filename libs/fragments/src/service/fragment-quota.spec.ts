import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { EXACT_COUNT_WITHIN, RECOUNT_AFTER_MS, FragmentQuota } from './fragment-quota.js';

/** A fragments table that only counts, and says how often it was counted. */
function table(initial: number) {
  const state = { rows: initial, counts: 0 };
  const db = { countInWorkspace: async () => (state.counts++, state.rows) };
  return { state, quota: new FragmentQuota(db) };
}

describe('FragmentQuota', () => {
  it('far from the limit, counts once and then adds its own creates until the recount interval', async () => {
    const { state, quota } = table(10);
    for (let i = 0; i < 50; i++) await quota.reserve('w', 100_000, 1_000);
    expect(state.counts).toBe(1);
    await quota.reserve('w', 100_000, 1_000 + RECOUNT_AFTER_MS);
    expect(state.counts).toBe(2);
  });

  it('near the limit, counts exactly on every create and refuses at the limit', async () => {
    const max = 5;
    const { state, quota } = table(3);
    await quota.reserve('w', max, 0);
    state.rows = 4;
    await quota.reserve('w', max, 1);
    state.rows = 5;
    const refused = await quota.reserve('w', max, 2).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('FRAGMENT_LIMIT_REACHED');
    expect(state.counts).toBe(3);
  });

  it('switches to exact counts once its own creates bring the workspace within the margin', async () => {
    const max = EXACT_COUNT_WITHIN + 20;
    const { state, quota } = table(0);
    for (let i = 0; i < 30; i++) {
      await quota.reserve('w', max, 0);
      state.rows++;
    }
    // One count, then 19 remembered creates (while count + 1,000 < 1,020), then 10 exact ones.
    expect(state.counts).toBe(1 + 10);
  });

  it('grants many creates at once up to the room left, counting exactly near the limit', async () => {
    const { state, quota } = table(95);
    expect(await quota.reserveMany('w', 100, 3, 0)).toEqual({ granted: 3, counted: 98 });
    state.rows = 98;
    // Two fit, the third would pass the limit: as three creates one after another.
    expect(await quota.reserveMany('w', 100, 3, 1)).toEqual({ granted: 2, counted: 100 });
    state.rows = 100;
    expect(await quota.reserveMany('w', 100, 1, 2)).toEqual({ granted: 0, counted: 100 });
    expect(state.counts).toBe(3);
  });

  it('far from the limit, adds a batch to the remembered count without counting again', async () => {
    const { state, quota } = table(0);
    expect(await quota.reserveMany('w', 100_000, 500, 0)).toEqual({ granted: 500, counted: 500 });
    expect(await quota.reserveMany('w', 100_000, 500, 1)).toEqual({ granted: 500 });
    expect(state.counts).toBe(1);
    // 1,000 remembered + 500 wanted would come within the margin of a 2,400 limit: count again.
    state.rows = 1_000;
    expect(await quota.reserveMany('w', 2_400, 500, 2)).toEqual({ granted: 500, counted: 1_500 });
    expect(state.counts).toBe(2);
  });
});
