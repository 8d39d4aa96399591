import type { EventEnvelope } from '@planhub/shared';
import type { Store } from '../store/store.ts';

const PAGE = 500;

export interface Scan {
  /** Matching events, oldest first. */
  events: EventEnvelope[];
  /** Where the next forward scan continues: past everything looked at, but never past an event not returned. */
  cursor: string | undefined;
}

/** Matching events after `after`, oldest first, at most `limit`; looks at no more than `maxScan` events. */
export const scanForward = async (
  store: Store,
  workspace: string,
  after: string,
  limit: number,
  match: (e: EventEnvelope) => boolean,
  maxScan: number,
): Promise<Scan> => {
  const events: EventEnvelope[] = [];
  let cursor = after;
  for (let scanned = 0; scanned < maxScan;) {
    const page = await store.readEvents(workspace, { after: cursor, count: PAGE });
    for (const event of page) {
      cursor = event.event_id;
      if (!match(event)) continue;
      events.push(event);
      if (events.length === limit) return { events, cursor };
    }
    scanned += page.length;
    if (page.length < PAGE) break;
  }
  return { events, cursor };
};

/**
 * The newest `limit` matching events, oldest first. The window grows ×4 until it holds enough matches or covers the
 * retained log, so a loose filter costs one small read. The cursor is the newest event of the log.
 */
export const scanNewest = async (
  store: Store,
  workspace: string,
  limit: number,
  match: (e: EventEnvelope) => boolean,
  maxScan: number,
): Promise<Scan> => {
  for (let count = Math.min(maxScan, Math.max(100, limit * 4)); ; count = Math.min(maxScan, count * 4)) {
    const window = await store.readEvents(workspace, { count });
    const matching = window.filter(match);
    if (matching.length >= limit || window.length < count || count >= maxScan)
      return { events: matching.slice(-limit), cursor: window.at(-1)?.event_id };
  }
};
