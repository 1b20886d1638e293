import { describe, expect, it } from 'vitest';
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
    expect(await quota.decide('w', 100_000, 1, 1_000)).toEqual({ near: false, counted: 11 });
    for (let i = 0; i < 50; i++) expect(await quota.decide('w', 100_000, 1, 1_000)).toEqual({ near: false });
    expect(state.counts).toBe(1);
    expect(await quota.decide('w', 100_000, 1, 1_000 + RECOUNT_AFTER_MS)).toEqual({ near: false, counted: 11 });
    expect(state.counts).toBe(2);
  });

  it('near the limit, leaves every create to the locked insert, without counting again while its count is fresh', async () => {
    const { state, quota } = table(3);
    expect(await quota.decide('w', 5, 1, 0)).toEqual({ near: true });
    // The locked insert wrote one and says the workspace now holds 4.
    quota.remember('w', 4, 1);
    expect(await quota.decide('w', 5, 1, 2)).toEqual({ near: true });
    expect(state.counts).toBe(1);
    expect(await quota.decide('w', 5, 1, 1 + RECOUNT_AFTER_MS)).toEqual({ near: true });
    expect(state.counts).toBe(2);
  });

  it('hands over to the locked insert once its own creates bring the workspace within the margin', async () => {
    const max = EXACT_COUNT_WITHIN + 20;
    const { state, quota } = table(0);
    const decisions: boolean[] = [];
    for (let i = 0; i < 30; i++) decisions.push((await quota.decide('w', max, 1, 0)).near);
    // One count, then creates remembered while count + 1 + 1,000 <= 1,020: 20 far, 10 near.
    expect(decisions.filter((near) => !near)).toHaveLength(20);
    expect(decisions.slice(20).every((near) => near)).toBe(true);
    expect(state.counts).toBe(1);
  });

  it('decides for a batch as a whole: far when all of it stays clear of the margin', async () => {
    const { state, quota } = table(0);
    expect(await quota.decide('w', 100_000, 500, 0)).toEqual({ near: false, counted: 500 });
    expect(await quota.decide('w', 100_000, 500, 1)).toEqual({ near: false });
    expect(state.counts).toBe(1);
    // 1,000 remembered + 500 wanted would come within the margin of a 2,400 limit.
    expect(await quota.decide('w', 2_400, 500, 2)).toEqual({ near: true });
    expect(state.counts).toBe(1);
  });
});
