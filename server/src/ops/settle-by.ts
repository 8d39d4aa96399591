/** How a step ended by its deadline: done, failed (with its error), or still running when the deadline came. */
export type Settled = { done: true } | { failed: unknown } | { late: true };

/**
 * Waits for `step` until `deadline` (a performance.now() time). The step goes on either way; its rejection is never
 * left unhandled, and is answered for the caller to report.
 */
export const settleBy = (deadline: number, step: Promise<unknown>): Promise<Settled> => {
  step.catch(() => undefined);
  const left = deadline - performance.now();
  if (left <= 0) return Promise.resolve({ late: true });
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ late: true }), left);
    step.then(
      () => {
        clearTimeout(timer);
        resolve({ done: true });
      },
      (err: unknown) => {
        clearTimeout(timer);
        resolve({ failed: err });
      },
    );
  });
};
