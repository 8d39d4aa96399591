import { PlanHubError } from '@planhub/shared';

/** What one call may still spend waiting on the store (milliseconds), and what it started with. */
export interface CallBudget {
  left: number;
  readonly total: number;
}

const exhausted = (total: number) =>
  new PlanHubError(
    'UNAVAILABLE',
    `The store did not answer within this call's deadline (${total / 1000} s of store time): Redis is hung or ` +
      'overloaded. Retry the call in a few seconds with the same request_id: if this attempt did apply, the retry ' +
      'is answered from the request log, never applied twice.',
    { kind: 'store_deadline', deadline_ms: total },
  );

/**
 * One deadline per call for everything it asks of the store. A call makes several round trips (its count, load,
 * request-log lookup, commit, retries after a conflict); with a timeout per command, a hung Redis cost the caller one
 * timeout per round trip in series. Here the call's store operations share one budget: each waits at most what is
 * left of it, the time it took is taken off, and once it is spent every further operation fails at once. Waiting for
 * events or an approval is not store time, so long-polls keep their own timeouts.
 *
 * The budget is handed down explicitly (call gate → dispatch → limiter, transaction, and the handler's
 * `CallContext.budget` for what it reads beside a transaction), not found through AsyncLocalStorage: that turned on
 * Node's promise hooks for every promise of the process, 4–5 % of a step change's profile. A store operation made
 * outside those paths (presence, sweeps) has the Redis client's own timeout per command.
 */
export const callBudget = (ms: number): CallBudget => ({ left: ms, total: ms });

/** Runs one store operation within `budget` (unbounded without one). */
export const withinBudget = <T>(budget: CallBudget | undefined, operation: () => Promise<T>): Promise<T> => {
  if (budget === undefined) return operation();
  if (budget.left <= 0) return Promise.reject(exhausted(budget.total));
  const started = performance.now();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      budget.left = 0;
      reject(exhausted(budget.total));
    }, budget.left);
    const settle = () => {
      clearTimeout(timer);
      budget.left -= performance.now() - started;
    };
    operation().then(
      (value) => (settle(), resolve(value)),
      (err: unknown) => {
        settle();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the operation's own failure on
        reject(err);
      },
    );
  });
};
