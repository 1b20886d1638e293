/**
 * An answer per account kept `ttlMs`, shared by concurrent askers (the promise is kept, so one
 * lookup serves them all), forgotten when it fails, the oldest dropped beyond `maxAccounts`.
 * For entitlements asked on hot paths (every model call, every create).
 */
export class PerAccountCache<T> {
  private readonly entries = new Map<string, { at: number; answer: Promise<T> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxAccounts = 10_000,
  ) {}

  get(account: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
    const cached = this.entries.get(account);
    if (cached && now - cached.at < this.ttlMs) return cached.answer;
    const answer = load();
    answer.catch(() => this.entries.delete(account));
    this.entries.delete(account);
    this.entries.set(account, { at: now, answer });
    if (this.entries.size > this.maxAccounts) this.entries.delete(this.entries.keys().next().value!);
    return answer;
  }
}
