import { describe, expect, it } from 'vitest';
import { nextAttemptDelay, parseRetrySchedule } from './retry-schedule.js';

describe('webhook retry schedule', () => {
  it('defaults to the Standard Webhooks schedule, about a day and a half over eight attempts', () => {
    const schedule = parseRetrySchedule();
    expect(schedule).toHaveLength(7);
    const hours = schedule.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(24);
    expect(hours).toBeLessThan(36);
  });

  it('parses units and refuses anything else', () => {
    expect(parseRetrySchedule('500ms, 2s,1m,1h')).toEqual([500, 2000, 60_000, 3_600_000]);
    expect(() => parseRetrySchedule('5 minutes')).toThrow();
  });

  it('jitters within ±20% and stops when the schedule is spent', () => {
    const schedule = [10_000, 20_000];
    expect(nextAttemptDelay(schedule, 1, undefined, () => 0)).toBe(8000);
    expect(nextAttemptDelay(schedule, 1, undefined, () => 1)).toBe(12_000);
    expect(nextAttemptDelay(schedule, 2, undefined, () => 0.5)).toBe(20_000);
    expect(nextAttemptDelay(schedule, 3)).toBeNull();
  });

  it('honours a longer Retry-After, capped at a day', () => {
    expect(nextAttemptDelay([1000], 1, 60_000, () => 0.5)).toBe(60_000);
    expect(nextAttemptDelay([1000], 1, 10, () => 0.5)).toBe(1000);
    expect(nextAttemptDelay([1000], 1, 30 * 24 * 3_600_000, () => 0.5)).toBe(24 * 3_600_000);
  });
});
