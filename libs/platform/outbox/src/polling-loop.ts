export interface PollingLoopOptions {
  /** Pause after a pass that left nothing to do. */
  intervalMs: number;
  /** Longest pause after consecutive failures (the pause doubles from intervalMs). */
  maxErrorPauseMs: number;
  onError(err: unknown, retryInMs: number): void;
}

/**
 * Runs `pass` over and over: again at once while it reports more work, after `intervalMs` when
 * it does not, with a doubling pause after failures. `poke()` says new work was just committed:
 * it cuts a pause short, and a poke during a pass runs the next one right after it (the pass
 * may have looked before that work was there). Used by the outbox relay and the webhook
 * delivery worker.
 */
export class PollingLoop {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private poked = false;

  /** `pass` answers true when it should run again at once (a full batch). */
  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly options: PollingLoopOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /** Stops after the pass in progress, if any. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let errors = 0;
    while (this.running) {
      let pause = this.options.intervalMs;
      this.poked = false;
      try {
        if ((await this.pass()) || this.poked) pause = 0;
        errors = 0;
      } catch (err) {
        errors++;
        pause = Math.min(this.options.maxErrorPauseMs, this.options.intervalMs * 2 ** errors);
        if (this.running) this.options.onError(err, pause);
      }
      if (pause > 0 && this.running) await this.sleep(pause);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
