/** Resolves when the person stops a long-running command (Ctrl-C) or the process is asked to end. */
export const untilInterrupted = (): Promise<void> =>
  new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
