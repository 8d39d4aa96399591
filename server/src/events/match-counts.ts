import type { EventEnvelope, Subscription } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import type { Store } from '../store/store.ts';
import { matchesFilter } from './match.ts';
import { scanBackward } from './scan-log.ts';

export interface MatchCount {
  /** Events after the subscription was made that match its filter, the subscriber's own included. */
  count: number;
  /** False when the scan's budget ran out before it reached the subscription's creation: count is a lower bound. */
  complete: boolean;
}

/**
 * Whether an event came after the subscription was made: after the log's newest event at that moment, or, for a
 * subscription stored without it, at or after its creation time (millisecond resolution).
 */
const afterCreation = (sub: Subscription, event: EventEnvelope): boolean =>
  sub.created_after_event !== undefined
    ? compareEventIds(event.event_id, sub.created_after_event) > 0
    : event.timestamp >= sub.created_at;

/**
 * Upstream's match_count, counted when it is asked for instead of on every event: a counter per subscription would be
 * a write on the event hot path for a number only listSubscriptions reads. Counting from the log gives what a counter
 * started at the subscription's creation would hold, for every event the log still retains (events trimmed from it
 * drop out). Replayed history is not counted, unlike upstream: whether a subscription replayed, and from where, is
 * the connection's choice (MCP sessions start live, `after_event` picks a cursor) and is not stored with it.
 *
 * The log is read newest first and only back to the oldest subscription's creation, within `budget` entries, so a
 * fresh subscription costs a read of the events since it was made.
 */
export const countSubscriptionMatches = async (
  store: Store,
  workspace: string,
  subs: readonly Subscription[],
  budget: number,
): Promise<{ counts: Map<string, MatchCount>; scanned: number; bytes: number }> => {
  if (subs.length === 0) return { counts: new Map(), scanned: 0, bytes: 0 };
  const counts = new Map(subs.map((s) => [s.subscription_id, 0]));
  const reached = new Set<string>();
  // The scan's one "match" is the first event older than every subscription, which ends it; the events on the way
  // are tallied here.
  const olderThanAll = (event: EventEnvelope): boolean => {
    let newer = false;
    for (const sub of subs) {
      if (!afterCreation(sub, event)) {
        reached.add(sub.subscription_id);
        continue;
      }
      newer = true;
      if (matchesFilter(sub, event)) counts.set(sub.subscription_id, counts.get(sub.subscription_id)! + 1);
    }
    return !newer;
  };
  const scan = await scanBackward(store, workspace, undefined, 1, olderThanAll, budget);
  return {
    scanned: scan.scanned,
    bytes: scan.bytes,
    counts: new Map(
      subs.map((s) => [
        s.subscription_id,
        { count: counts.get(s.subscription_id)!, complete: scan.complete || reached.has(s.subscription_id) },
      ]),
    ),
  };
};
