/**
 * What the bench's nodes wait before reporting a departed agent offline: one presence heartbeat after its last
 * connection closed (a reconnect within that grace is no departure). Set on every node the bench starts, so the
 * wait below follows it.
 */
export const PRESENCE_HEARTBEAT_MS = 2000;

/**
 * Every run of the bench opens fresh agents and closes them at its end. Their node reports them offline a heartbeat
 * later, 50 to 100 commits and events at once, which used to land inside the next run's measured window: that run
 * was charged its predecessor's departures, and one such burst is enough to fail a probe's p99 target. A run starts
 * measuring only once the agents that left before it have been reported: `settleMs` after the last one left.
 */
let lastDeparture = Number.NEGATIVE_INFINITY;

/** When the last agent left (performance.now()), -Infinity before any did. */
export const lastDepartureAt = (): number => lastDeparture;

/** Called as an agent's socket closes. */
export const departed = (): void => {
  lastDeparture = performance.now();
};

/** Resolves once `settleMs` have passed since the last agent left (at once when none left that recently). */
export const settleDepartures = async (settleMs: number): Promise<void> => {
  const wait = lastDeparture + settleMs - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
};
