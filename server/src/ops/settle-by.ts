/** How a step ended by its deadline: done (with its value), failed (with its error), or still running then. */
export type Settled<T> = { done: true; value: T } | { failed: unknown } | { late: true };

/**
 * Waits for `step` until `deadline` (a performance.now() time). The step goes on either way; its rejection is never
 * left unhandled, and is answered for the caller to report.
 */
export const settleBy = <T>(deadline: number, step: Promise<T>): Promise<Settled<T>> => {
  step.catch(() => undefined);
  const left = deadline - performance.now();
  if (left <= 0) return Promise.resolve({ late: true });
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ late: true }), left);
    step.then(
      (value) => {
        clearTimeout(timer);
        resolve({ done: true, value });
      },
      (err: unknown) => {
        clearTimeout(timer);
        resolve({ failed: err });
      },
    );
  });
};
