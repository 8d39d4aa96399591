import { PlanHubError } from '../errors.ts';
import { coalesce } from './coalesce.ts';

/** Waits before the 1st, 2nd, … retry of a live view's failed read; the last repeats. */
export const RETRY_STEPS_MS: readonly number[] = [500, 1000, 2000, 5000];

/** The `retry_after_ms` a refusal's details (or a refused handshake's data) ask for; 0 when they name none. */
export const retryAfterOf = (details: unknown): number => {
  const ms = (details as { retry_after_ms?: unknown } | null | undefined)?.retry_after_ms;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : 0;
};

/** How long to wait before retry number `attempt` (from 0) after `err`: its step, or longer when a refusal asks. */
export const retryWait = (err: unknown, attempt: number, steps: readonly number[] = RETRY_STEPS_MS): number =>
  Math.max(
    err instanceof PlanHubError ? retryAfterOf(err.details) : 0,
    steps[Math.min(attempt, steps.length - 1)] ?? 0,
  );

/**
 * `coalesce`, and a run that failed runs again (after `retryWait`) if `keepTrying()` still holds when the wait ends.
 * The live views re-read the overview when an event asks for it, and that event will not ask again: without the
 * retry, one refused or timed-out read left the view stale until the next such event. `stop` drops a pending retry.
 */
export const coalesceRetrying = (
  task: () => Promise<void>,
  onError: (err: unknown) => void,
  keepTrying: () => boolean,
): { run: () => void; stop: () => void } => {
  let failures = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const run = coalesce(
    async () => {
      await task();
      failures = 0;
    },
    (err) => {
      onError(err);
      retry ??= setTimeout(
        () => {
          retry = undefined;
          if (keepTrying()) run();
        },
        retryWait(err, failures++),
      );
    },
  );
  return {
    run,
    stop: () => {
      if (retry !== undefined) clearTimeout(retry);
      retry = undefined;
    },
  };
};
