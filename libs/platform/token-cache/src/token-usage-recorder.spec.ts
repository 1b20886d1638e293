import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TokenUse } from './token-use.js';
import { TokenUsageRecorder } from './token-usage-recorder.js';

/** A store that keeps what was written, as totals per token and day, and can be made to fail. */
function memoryStore() {
  const totals = new Map<string, number>();
  const last = new Map<string, { at: Date; ip: string }>();
  let writes = 0;
  let failing = false;
  return {
    totals,
    last,
    get writes() {
      return writes;
    },
    fail(on: boolean) {
      failing = on;
    },
    async recordUses(tokenId: string, use: TokenUse) {
      if (failing) throw new Error('database down');
      writes += 1;
      for (const [day, n] of use.requestsPerDay)
        totals.set(`${tokenId}/${day}`, (totals.get(`${tokenId}/${day}`) ?? 0) + n);
      last.set(tokenId, { at: use.lastAt, ip: use.lastIp });
    },
  };
}

const at = (iso: string) => new Date(iso);

describe('TokenUsageRecorder', () => {
  afterEach(() => vi.useRealTimers());

  it('writes each token once per flush, with the count per UTC day and the latest use', async () => {
    const store = memoryStore();
    const recorder = new TokenUsageRecorder(store);
    recorder.record('t1', '10.0.0.1', at('2026-11-22T23:59:59Z'));
    recorder.record('t1', '10.0.0.2', at('2026-11-23T00:00:01Z'));
    recorder.record('t1', '10.0.0.3', at('2026-11-23T00:00:00Z'));
    recorder.record('t2', '10.0.0.9', at('2026-11-23T00:00:00Z'));
    expect(store.writes).toBe(0);
    await recorder.flush();
    expect(store.writes).toBe(2);
    expect(Object.fromEntries(store.totals)).toEqual({ 't1/2026-11-22': 1, 't1/2026-11-23': 2, 't2/2026-11-23': 1 });
    expect(store.last.get('t1')).toEqual({ at: at('2026-11-23T00:00:01Z'), ip: '10.0.0.2' });
    await recorder.flush();
    expect(store.writes).toBe(2);
  });

  it('flushes by itself after the interval', async () => {
    vi.useFakeTimers();
    const store = memoryStore();
    const recorder = new TokenUsageRecorder(store);
    recorder.record('t1', '', at('2026-11-22T10:00:00Z'));
    await vi.advanceTimersByTimeAsync(recorder.flushEveryMs + 10);
    expect(store.totals.get('t1/2026-11-22')).toBe(1);
  });

  it('keeps the uses of a failed write for the next flush, adding what came since', async () => {
    const store = memoryStore();
    const recorder = new TokenUsageRecorder(store);
    recorder.record('t1', '', at('2026-11-22T10:00:00Z'));
    recorder.record('t1', '', at('2026-11-22T10:00:01Z'));
    store.fail(true);
    await expect(recorder.flush()).rejects.toThrow('database down');
    recorder.record('t1', '', at('2026-11-22T10:00:02Z'));
    store.fail(false);
    await recorder.flush();
    expect(store.totals.get('t1/2026-11-22')).toBe(3);
  });

  it('keeps the tokens not yet written when a write fails midway, and writes none twice', async () => {
    const store = memoryStore();
    const recorder = new TokenUsageRecorder(store);
    const write = store.recordUses.bind(store);
    let calls = 0;
    store.recordUses = async (tokenId: string, use: TokenUse) => {
      calls += 1;
      if (calls === 2) throw new Error('database down');
      await write(tokenId, use);
    };
    for (const t of ['t1', 't2', 't3']) recorder.record(t, '', at('2026-11-22T10:00:00Z'));
    await expect(recorder.flush()).rejects.toThrow('database down');
    await recorder.flush();
    expect(Object.fromEntries(store.totals)).toEqual({ 't1/2026-11-22': 1, 't2/2026-11-22': 1, 't3/2026-11-22': 1 });
  });

  it('retries a failed timed flush by itself, with no further use needed', async () => {
    vi.useFakeTimers();
    const store = memoryStore();
    const recorder = new TokenUsageRecorder(store);
    store.fail(true);
    recorder.record('t1', '', at('2026-11-22T10:00:00Z'));
    await vi.advanceTimersByTimeAsync(recorder.flushEveryMs + 10);
    expect(store.writes).toBe(0);
    store.fail(false);
    await vi.advanceTimersByTimeAsync(recorder.flushEveryMs + 10);
    expect(store.totals.get('t1/2026-11-22')).toBe(1);
  });

  it('loses nothing at shutdown', async () => {
    const store = memoryStore();
    const recorder = new TokenUsageRecorder(store);
    for (let i = 0; i < 50; i++) recorder.record(`t${i % 3}`, '', at('2026-11-22T10:00:00Z'));
    await recorder.onModuleDestroy();
    expect([...store.totals.values()].reduce((a, b) => a + b, 0)).toBe(50);
  });
});
