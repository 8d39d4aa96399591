/** Ctrl-C, a polite kill, and the terminal closing (SIGHUP) all end a long-running command the same orderly way. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves when the person stops a long-running command (Ctrl-C), the process is asked to end or its terminal goes
 * away. Rejects with `failed`'s error when that comes first: a command following a node whose client closed itself
 * must end too, since nothing would ever arrive again.
 */
export const untilInterrupted = (failed?: Promise<never>): Promise<void> =>
  new Promise((resolve, reject) => {
    const forget = () => {
      for (const signal of STOP_SIGNALS) process.off(signal, stop);
    };
    const stop = () => {
      forget();
      resolve();
    };
    for (const signal of STOP_SIGNALS) process.on(signal, stop);
    failed?.catch((err: unknown) => {
      forget();
      reject(err instanceof Error ? err : new Error(String(err)));
    });
  });
