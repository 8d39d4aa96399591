import { PlanHubError } from '@planhub/shared';

/** /readyz's reason, and the error's `details.kind`, when only the events are down. */
export const EVENTS_DOWN = 'store_events_down';

/**
 * The store answers calls, but this node's event subscription to it is down (refused at `maxclients`, replaced after
 * a silent drop, still reconnecting): calls work, and events committed elsewhere reach this node's clients late.
 * Told apart from an outage so that /readyz and the store monitor do not say that calls fail.
 */
export const eventsDown = () =>
  new PlanHubError(
    'UNAVAILABLE',
    "The store answers, but this node's event subscription to it is down: calls work, and events from other nodes " +
      "reach this node's clients once it is back.",
    { kind: EVENTS_DOWN },
  );

export const isEventsDown = (err: unknown): boolean =>
  err instanceof PlanHubError && (err.details as { kind?: unknown } | undefined)?.kind === EVENTS_DOWN;
