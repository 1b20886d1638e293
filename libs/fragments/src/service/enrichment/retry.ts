export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
}

export type Attempted<T> = { ok: true; value: T; attempts: number } | { ok: false; error: string; attempts: number };

/** Exponential backoff with full jitter between half and all of base * 2^(attempt-1). */
export function backoffDelay(attempt: number, baseDelayMs: number, random = Math.random): number {
  const ceiling = baseDelayMs * 2 ** (attempt - 1);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Runs `fn` up to maxAttempts times; never throws, reports the last error instead. */
export async function withRetry<T>(
  fn: () => Promise<T>,
  policy: RetryPolicy,
  onRetry?: (attempt: number, err: unknown) => void,
): Promise<Attempted<T>> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    try {
      return { ok: true, value: await fn(), attempts: attempt };
    } catch (err) {
      lastError = err;
      if (attempt < policy.maxAttempts) {
        onRetry?.(attempt, err);
        await new Promise((r) => setTimeout(r, backoffDelay(attempt, policy.baseDelayMs)));
      }
    }
  }
  return {
    ok: false,
    error: lastError instanceof Error ? lastError.message : String(lastError),
    attempts: policy.maxAttempts,
  };
}
