export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

/** Full-jitter exponential backoff: attempt 0 → up to base, doubling to max. `random` is injectable for tests. */
export const backoffDelay = (attempt: number, options: BackoffOptions, random: () => number = Math.random): number =>
  Math.floor(random() * Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30)));
