import { PlanHubError } from '@planhub/shared';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import type { SubscriptionFilter } from './subscriptions.ts';

/**
 * Whether the application's subscriptions are receiving events:
 * - `idle`: it has none;
 * - `live`: every subscription is active on the current connection;
 * - `renewing`: the connection was lost or replaced and they are being renewed (events resume from the last one
 *   delivered, none lost);
 * - `failed-retrying`: renewing failed (`error`, `attempt` failures so far) and is retried with backoff until it
 *   succeeds or the client is closed.
 */
export type SubscriptionState = 'idle' | 'live' | 'renewing' | 'failed-retrying';

export interface SubscriptionStateInfo {
  state: SubscriptionState;
  /** Failed renewal attempts since the connection was (re)made; 0 while live or on the first try. */
  attempt: number;
  /** Why the last attempt failed (`failed-retrying` only). */
  error?: PlanHubError;
}

export const DEFAULT_RENEWAL_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 5_000 };

export interface RenewalDeps {
  filters: () => SubscriptionFilter[];
  /** One renewal call (no retries of its own: this loop is the retry). */
  subscribe: (filter: SubscriptionFilter) => Promise<unknown>;
  report: (info: SubscriptionStateInfo) => void;
  backoff: BackoffOptions;
}

/**
 * Renews every subscription on a new connection, retrying with backoff until all succeed. `stop()` (a newer
 * connection took over, or the client closed) ends the loop and its pending timer at once.
 */
export class Renewal {
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly deps: RenewalDeps) {}

  async run(): Promise<void> {
    const { deps } = this;
    if (deps.filters().length === 0) return;
    deps.report({ state: 'renewing', attempt: 0 });
    for (let attempt = 0; !this.stopped;) {
      try {
        for (const filter of deps.filters()) {
          if (this.stopped) return;
          await deps.subscribe(filter);
        }
        if (!this.stopped) deps.report({ state: deps.filters().length > 0 ? 'live' : 'idle', attempt: 0 });
        return;
      } catch (err) {
        if (this.stopped) return;
        const error = err instanceof PlanHubError ? err : new PlanHubError('INTERNAL', String(err));
        attempt += 1;
        deps.report({ state: 'failed-retrying', attempt, error });
        await this.pause(backoffDelay(attempt - 1, deps.backoff));
      }
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wake?.();
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.wake = undefined;
        resolve();
      }, ms);
    });
  }
}
