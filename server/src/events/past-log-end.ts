import { compareEventIds } from '@planhub/shared';
import type { Store } from '../store/store.ts';

/** The position before every event: where a read of all the events a log keeps starts. */
export const LOG_START = '0-0';

/**
 * Whether `cursor` lies past the newest event the workspace's log keeps (on an empty log: any cursor but LOG_START).
 * Ids only grow along one log, so this log never wrote it: the store was wiped, or restarted with its clock behind
 * the old ids, or the id is another hub's or made up. A read after it would find nothing for ever, so readers start
 * at the oldest kept event instead, as for an id that is not an event id at all.
 *
 * One read of the newest entry: callers ask only once a read after the cursor found nothing (or once per stream
 * start), so a reader that keeps up pays nothing for it.
 */
export const isPastLogEnd = async (store: Store, workspace: string, cursor: string): Promise<boolean> => {
  if (cursor === LOG_START) return false;
  const newest = (await store.readEvents(workspace, { count: 1 })).at(-1)?.event_id;
  return newest === undefined || compareEventIds(cursor, newest) > 0;
};

/** What an answer says when its cursor was past the log's end: what happened, then `next` (how to go on). */
export const pastLogEndWarning = (name: string, cursor: string, next: string): string =>
  `${name} "${cursor}" is later than the newest event of this workspace's log (the log was reset, or the id does ` +
  `not come from it), so ${next}`;
