/**
 * Waits for `step` until `deadline` (a performance.now() time): true when it settled by then, fulfilled or rejected,
 * false when the deadline came first. The step goes on either way; its rejection is never left unhandled.
 */
export const settleBy = (deadline: number, step: Promise<unknown>): Promise<boolean> => {
  step.catch(() => undefined);
  const left = deadline - performance.now();
  if (left <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), left);
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    step.then(settled, settled);
  });
};
