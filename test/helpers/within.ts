/**
 * Settles as `promise` does, or with `late` once `ms` have passed without it settling: a test that waits on something
 * that may never happen fails with a readable value instead of hanging until its own timeout.
 */
export const within = <T, const L>(promise: Promise<T>, ms: number, late: L): Promise<T | L> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve) => (timer = setTimeout(() => resolve(late), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

/** How `promise` ended within `ms`: 'resolved', the error it rejected with, or 'still pending'. */
export const settledWithin = (promise: Promise<unknown>, ms: number): Promise<unknown> =>
  within(
    promise.then(
      () => 'resolved',
      (err: unknown) => err,
    ),
    ms,
    'still pending',
  );
