/**
 * Runs `task` now, or — when a run is already going — once more after it ends, however many times it was asked
 * for meanwhile. The live views use it to re-read the workspace overview without ever piling up reads.
 */
export const coalesce = (task: () => Promise<void>, onError: (err: unknown) => void): (() => void) => {
  let running = false;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    task()
      .catch(onError)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
};
