interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for small writes many callers make at once: the writes that arrive while one
 * is in flight go together in the next, so under load N callers pay about one statement, and
 * a caller alone pays one statement at once (no timer, no added latency). Each caller's
 * promise settles when its own write is durable.
 */
export class GroupCommit<T, R = void> {
  private queue: Waiting<T, R>[] = [];
  private draining = false;

  /**
   * `write` stores a batch in one atomic statement or transaction. When a batch fails, each of
   * its items is written alone, so one bad item (say, a row deleted meanwhile) fails only its caller.
   * It may answer one result per item, in the items' order (each caller gets its own).
   */
  constructor(
    private readonly write: (items: T[]) => Promise<readonly R[] | void>,
    private readonly maxBatch = 256,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.write(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results?.[i] as R));
        } catch (err) {
          if (batch.length === 1) batch[0].reject(err);
          else
            await Promise.all(
              batch.map((w) => this.write([w.item]).then((results) => w.resolve(results?.[0] as R), w.reject)),
            );
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
