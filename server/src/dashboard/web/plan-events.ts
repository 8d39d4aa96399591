import type { TaskEvent, ToolResult } from '@planhub/shared';
import { EVENT_TYPES, compareEventIds } from '@planhub/shared';
import type { Connection } from './connection.ts';

/** Events a plan's page holds at most, the newest kept. */
const MOST_EVENTS = 500;
/**
 * Calls one read makes at most. A call looks at a bounded number of log entries (2,000), so a plan whose events are
 * all older than that gets none and a cursor to go on from. Five calls cover the default retained log (10,000
 * entries); each costs the reader about 21 units of its call budget, so the search stops there.
 */
const MOST_CALLS = 5;

export interface PlanEvents {
  /** Oldest first. */
  events: TaskEvent[];
  /** Log entries looked at, from the newest back. */
  scanned: number;
  /** Whether the search reached the oldest entry the server keeps. */
  complete: boolean;
}

const fresher = (events: TaskEvent[], than: string | undefined): TaskEvent[] =>
  than === undefined ? events : events.filter((e) => compareEventIds(e.event_id, than) > 0);

/**
 * A plan's events, read back page by page from the newest. Given what an earlier read found, it stops where that read
 * began: a page that reads again on every event of its plan makes one call for it, not a whole search.
 */
export const readPlanEvents = async (conn: Connection, planId: string, known?: PlanEvents): Promise<PlanEvents> => {
  const newestKnown = known?.events.at(-1)?.event_id;
  let events: TaskEvent[] = [];
  let scanned = 0;
  let before: string | null = null;
  for (let calls = 0; calls < MOST_CALLS; calls++) {
    const page: ToolResult<'getTaskEvents'> = await conn.call('getTaskEvents', {
      plan_id: planId,
      limit: MOST_EVENTS - events.length,
      event_types: [...EVENT_TYPES],
      ...(before ? { before_event: before } : {}),
    });
    const fresh = fresher(page.events, newestKnown);
    events = [...fresh, ...events];
    scanned += page.scanned ?? 0;
    before = page.next_before ?? null;
    const reachedKnown =
      newestKnown !== undefined &&
      (fresh.length < page.events.length || before === null || compareEventIds(before, newestKnown) <= 0);
    if (known && reachedKnown)
      return {
        events: [...known.events, ...events].slice(-MOST_EVENTS),
        scanned: known.scanned + scanned,
        complete: known.complete || before === null,
      };
    // A plan's first event is its plan_created: nothing of it is older, so the search ends there. Without this, a
    // plan whose events were all in the first page went on scanning the rest of the log (up to 4 more calls of
    // 2,000 entries each), and a few plan pages opened in a row spent the page's whole call budget.
    const begun = page.events.some((e) => e.event_type === 'plan_created' && e.source_plan_id === planId);
    if (begun)
      return {
        events: [...(known?.events ?? []), ...events].slice(-MOST_EVENTS),
        scanned: (known?.scanned ?? 0) + scanned,
        complete: true,
      };
    if (before === null || events.length >= MOST_EVENTS) return { events, scanned, complete: before === null };
  }
  return { events, scanned, complete: false };
};
