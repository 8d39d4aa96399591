import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import type { EventRange } from '../store.ts';
import { eventKey, parseEventId, prefixRange } from './file-keys.ts';
import type { Table } from './file-state.ts';
import { noteReadBytes } from '../read-bytes.ts';

const take = (entries: Iterable<{ value: string }>, keep: (e: EventEnvelope) => boolean, count: number) => {
  const out: EventEnvelope[] = [];
  if (count <= 0) return out;
  for (const { value } of entries) {
    const event = noteReadBytes(JSON.parse(value) as EventEnvelope, value.length);
    if (!keep(event)) continue;
    out.push(event);
    if (out.length >= count) break;
  }
  return out;
};

/**
 * The memory store's `readEvents` over the engine's ordered keys: after a cursor, before one, or the newest. The
 * scan starts at the cursor's key and filters with the shared id comparison, so an odd cursor reads as it does there.
 */
export const readEventRange = (events: Table, workspace: string, range: EventRange): EventEnvelope[] => {
  const { start, end } = prefixRange(workspace);
  if (range.after === undefined && range.before !== undefined) {
    const before = range.before;
    const [ms] = parseEventId(before);
    // An unreadable cursor matches nothing in the shared comparison: the memory store then reads the newest.
    const bounded = Number.isFinite(ms);
    const from = bounded ? eventKey(workspace, ms + 1, 0) : end;
    const older = take(
      events.getRange({ start: from, end: start, reverse: true }),
      (e) => !bounded || compareEventIds(e.event_id, before) < 0,
      range.count,
    );
    return older.reverse();
  }
  if (range.after === undefined)
    return take(events.getRange({ start: end, end: start, reverse: true }), () => true, range.count).reverse();
  const after = range.after;
  const [ms] = parseEventId(after);
  if (!Number.isFinite(ms)) return [];
  return take(
    events.getRange({ start: eventKey(workspace, ms, 0), end }),
    (e) => compareEventIds(e.event_id, after) > 0,
    range.count,
  );
};
