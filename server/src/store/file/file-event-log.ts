import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import type { EventRange } from '../store.ts';
import { eventKey, parseEventId, prefixRange, SEP } from './file-keys.ts';
import { entryObject, type SkippedEntry } from '../skipped-events.ts';
import type { Table } from './file-state.ts';
import { noteReadBytes } from '../read-bytes.ts';

/** An event's id from its key (`<workspace>SEP<ms, fixed width><seq, fixed width>`), as eventKey wrote it. */
export const eventIdOfKey = (key: string): string => {
  const parts = key.slice(key.lastIndexOf(SEP) + 1);
  const width = parts.length / 2;
  return `${Number(parts.slice(0, width))}-${Number(parts.slice(width))}`;
};

/** The log's entry as an event, or undefined (named) when it is not one: skipped as the Redis store skips it. */
const eventOf = (workspace: string, key: unknown, value: string, skipped: SkippedEntry) => {
  const [log, id] = [`events of ${workspace}`, eventIdOfKey(String(key))];
  const event = entryObject(value, log, id, skipped);
  if (event === undefined) return undefined;
  if (typeof event.event_id !== 'string') return void skipped(log, id, 'not an event with an id');
  return noteReadBytes(event as unknown as EventEnvelope, value.length);
};

const take = (
  workspace: string,
  entries: Iterable<{ key: unknown; value: string }>,
  keep: (e: EventEnvelope) => boolean,
  count: number,
  skipped: SkippedEntry,
) => {
  const out: EventEnvelope[] = [];
  if (count <= 0) return out;
  for (const { key, value } of entries) {
    const event = eventOf(workspace, key, value, skipped);
    if (event === undefined || !keep(event)) continue;
    out.push(event);
    if (out.length >= count) break;
  }
  return out;
};

/**
 * The memory store's `readEvents` over the engine's ordered keys: after a cursor, before one, or the newest. The
 * scan starts at the cursor's key and filters with the shared id comparison, so an odd cursor reads as it does there.
 */
export const readEventRange = (
  events: Table,
  workspace: string,
  range: EventRange,
  skipped: SkippedEntry,
): EventEnvelope[] => {
  const { start, end } = prefixRange(workspace);
  if (range.after === undefined && range.before !== undefined) {
    const before = range.before;
    const [ms] = parseEventId(before);
    // An unreadable cursor matches nothing in the shared comparison: the memory store then reads the newest.
    const bounded = Number.isFinite(ms);
    const from = bounded ? eventKey(workspace, ms + 1, 0) : end;
    const older = take(
      workspace,
      events.getRange({ start: from, end: start, reverse: true }),
      (e) => !bounded || compareEventIds(e.event_id, before) < 0,
      range.count,
      skipped,
    );
    return older.reverse();
  }
  if (range.after === undefined)
    return take(
      workspace,
      events.getRange({ start: end, end: start, reverse: true }),
      () => true,
      range.count,
      skipped,
    ).reverse();
  const after = range.after;
  const [ms] = parseEventId(after);
  if (!Number.isFinite(ms)) return [];
  return take(
    workspace,
    events.getRange({ start: eventKey(workspace, ms, 0), end }),
    (e) => compareEventIds(e.event_id, after) > 0,
    range.count,
    skipped,
  );
};
