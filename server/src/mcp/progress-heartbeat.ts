/** How often a waiting call tells the host it is still alive. */
export const HEARTBEAT_MS = 10_000;

export type Heartbeat = (elapsedS: number, totalS: number) => void;

/**
 * Runs `work` while reporting progress: once at the start, then every HEARTBEAT_MS. Hosts that reset their tool
 * timeout on progress (the MCP client's resetTimeoutOnProgress) then never time a wait out.
 */
export const withHeartbeat = async <T>(
  beat: Heartbeat | undefined,
  totalS: number,
  work: () => Promise<T>,
): Promise<T> => {
  if (beat === undefined || totalS === 0) return work();
  const started = Date.now();
  beat(0, totalS);
  const timer = setInterval(() => beat(Math.min(totalS, (Date.now() - started) / 1000), totalS), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
};
