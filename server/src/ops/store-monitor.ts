import type { Logger } from 'pino';
import { isEventsDown } from '../store/events-down.ts';

export interface StoreMonitorOptions {
  ping: () => Promise<void>;
  log: Logger;
  /** What is being watched, as the operator knows it: `Redis at redis://redis:6379`. */
  name: string;
  /** Time between checks. */
  intervalMs?: number;
  /** While the store stays unreachable, one summary line per this period. */
  summaryMs?: number;
  now?: () => number;
  /** Called after every check (the ping reads the store's epoch too: see node-ops.ts). */
  checked?: () => void;
  /** Why the store last failed (`WRONGPASS …`, `ECONNREFUSED`), without secrets, while it is failing. */
  reason?: () => string | undefined;
  /**
   * Why the node stays unready although the store answers again (it came back without the data it had), so the line
   * that ends an outage does not claim the node is ready.
   */
  stillUnready?: () => string | undefined;
}

export interface StoreHealth {
  reachable: boolean;
  /** When the current outage began (epoch ms), while unreachable. */
  downSince?: number;
  /** Why, when known: a wrong password must not read as a network outage. */
  reason?: string;
}

/**
 * Watches the store on its own schedule, so an outage is logged even when no client calls (at startup, at night).
 * It logs one line per change of state and a periodic summary while an outage lasts, never one line per failed
 * check or call: a Redis down for an hour produces a few dozen lines, not millions.
 */
export const monitorStore = (options: StoreMonitorOptions) => {
  const { ping, log, name } = options;
  const intervalMs = options.intervalMs ?? 2000;
  const summaryMs = options.summaryMs ?? 60_000;
  const now = options.now ?? Date.now;
  let state: 'unknown' | 'up' | 'down' = 'unknown';
  let downSince = 0;
  let lastSummary = 0;
  let failedChecks = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  /** Only the event subscription is down (calls work): the lines say that, not that calls fail. */
  let eventsOnly = false;
  const check = async () => {
    const failure = await ping().then(
      () => undefined,
      (err: unknown) => ({ err }),
    );
    const ok = failure === undefined;
    if (stopped) return;
    options.checked?.();
    const at = now();
    if (ok) {
      if (state === 'down') {
        const fields = { down_s: Math.round((at - downSince) / 1000), failed_checks: failedChecks };
        const back = eventsOnly
          ? `The event subscription to ${name} is back after ${fields.down_s} s`
          : `${name} is reachable again after ${fields.down_s} s`;
        const unready = options.stillUnready?.();
        if (unready === undefined) log.info(fields, `${back}; the node is ready`);
        else log.error(fields, `${back}, but the node stays unready: ${unready}`);
      }
      state = 'up';
      failedChecks = 0;
    } else {
      failedChecks += 1;
      const reason = options.reason?.();
      const why = reason === undefined ? {} : { reason };
      eventsOnly = isEventsDown(failure.err);
      if (state !== 'down') {
        log.error(
          why,
          eventsOnly
            ? `${name} answers, but this node's event subscription to it is down: calls work, events from other ` +
                "nodes reach this node's clients late, and /readyz answers 503 until it is back (checking every few seconds)"
            : `${name} is unreachable${state === 'unknown' ? ' at startup' : ''}: calls answer UNAVAILABLE and ` +
                '/readyz answers 503 until it is back (checking every few seconds)',
        );
        state = 'down';
        downSince = at;
        lastSummary = at;
      } else if (at - lastSummary >= summaryMs) {
        lastSummary = at;
        log.warn(
          { down_s: Math.round((at - downSince) / 1000), failed_checks: failedChecks, ...why },
          `${eventsOnly ? `The event subscription to ${name} is still down` : `${name} still unreachable`} after ` +
            `${Math.round((at - downSince) / 1000)} s`,
        );
      }
    }
  };

  const loop = () => {
    timer = setTimeout(() => {
      void check().finally(() => {
        if (!stopped) loop();
      });
    }, intervalMs);
    timer.unref();
  };

  return {
    /** Checks at once, then every intervalMs. */
    start(): void {
      void check().finally(() => {
        if (!stopped) loop();
      });
    },
    stop(): void {
      stopped = true;
      clearTimeout(timer);
    },
    health(): StoreHealth {
      if (state !== 'down') return { reachable: true };
      const reason = options.reason?.();
      return reason === undefined ? { reachable: false, downSince } : { reachable: false, downSince, reason };
    },
  };
};
