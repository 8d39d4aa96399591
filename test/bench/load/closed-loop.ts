/**
 * A short closed-loop burst (each worker sends its next request when the previous one is answered). It is used
 * ONLY to pick the first rate the open-loop search tries: a closed loop adapts to the server and so hides
 * queueing, which is why no reported figure comes from it.
 */
export const estimateCapacity = async (
  send: (i: number) => Promise<unknown>,
  options: { concurrency: number; durationMs: number },
): Promise<number> => {
  let i = 0;
  let completed = 0;
  const start = performance.now();
  const deadline = start + options.durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        await send(i++);
        completed += 1;
      } catch {
        // An error slows the estimate down, which is what we want from it.
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return (completed * 1000) / (performance.now() - start);
};
