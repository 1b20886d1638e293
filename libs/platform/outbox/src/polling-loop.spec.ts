import { describe, expect, it, vi } from 'vitest';
import { PollingLoop } from './polling-loop.js';

// The interval is a minute: any pass within a test's few seconds came from a poke or a full batch.
const options = { intervalMs: 60_000, maxErrorPauseMs: 60_000, onError: () => {} };

describe('PollingLoop', () => {
  it('runs a pass at start, then again at once when poked in its pause', async () => {
    let passes = 0;
    const loop = new PollingLoop(async () => (passes++, false), options);
    loop.start();
    await vi.waitFor(() => expect(passes).toBe(1));
    loop.poke();
    await vi.waitFor(() => expect(passes).toBe(2));
    await loop.stop();
  });

  it('runs another pass right after one that was poked while it ran', async () => {
    let passes = 0;
    let release!: () => void;
    const loop = new PollingLoop(async () => {
      passes++;
      if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
      return false;
    }, options);
    loop.start();
    await vi.waitFor(() => expect(release).toBeDefined());
    loop.poke(); // new work committed while the first pass was looking
    release();
    await vi.waitFor(() => expect(passes).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(passes).toBe(2); // and then it pauses again
    await loop.stop();
  });

  it('keeps going at once while a pass reports a full batch, and stops after the pass in progress', async () => {
    let passes = 0;
    const loop = new PollingLoop(async () => ++passes < 5, options);
    loop.start();
    await vi.waitFor(() => expect(passes).toBe(5));
    await loop.stop();
    expect(passes).toBe(5);
  });
});
