import { isDataLoss } from './call-errors.ts';
import type { Connection } from './connection.ts';
import { type DashboardState, groupTypes } from './state.ts';

const OLDER_PAGE = 50;

export interface OlderDeps {
  state: DashboardState;
  connection: () => Connection;
  schedule: () => void;
  fail: (err: unknown) => unknown;
  /** The store was found wiped (data-loss.ts): the banner says so once, not a notice per press. */
  lose: (message: string) => void;
}

/**
 * The feed's "older events": first what the page holds past its display cap, then pages of the log read backwards
 * under the feed's filter, one request at a time, until the log has no more.
 */
export const createOlderLoader =
  ({ state, connection, schedule, fail, lose }: OlderDeps) =>
  async (): Promise<void> => {
    // The server's pages start before the live buffer: matching events it holds beyond the display cap come first,
    // or a page read from the server would sit below events the reader cannot see.
    const hidden = state.visibleFeed().length - state.feedShown;
    if (hidden > 0) {
      state.showMore(Math.min(OLDER_PAGE, hidden));
      schedule();
      return;
    }
    // The log those pages came from no longer exists: every read answers DATA_LOSS, or reads another history.
    if (state.olderGone) return;
    const key = state.filterKey;
    if (state.older?.key !== key)
      state.older = { key, events: [], nextBefore: state.feed[0]?.event_id ?? null, scanned: 0, loading: false };
    const older = state.older;
    if (older.loading || (older.nextBefore === null && older.events.length + older.scanned > 0)) return;
    older.loading = true;
    schedule();
    try {
      const text = state.filter.agent.trim();
      const page = await connection().call('getTaskEvents', {
        limit: OLDER_PAGE,
        event_types: groupTypes(state.filter.group),
        ...(older.nextBefore ? { before_event: older.nextBefore } : {}),
        ...(text ? { text } : {}),
      });
      older.events.unshift(...page.events);
      if (state.older === older && state.filterKey === key) state.showMore(page.events.length);
      older.scanned += page.scanned ?? 0;
      older.nextBefore = page.next_before ?? null;
    } catch (err) {
      if (isDataLoss(err)) lose(err.message);
      else fail(err);
    } finally {
      older.loading = false;
      schedule();
    }
  };
