import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { withEventId } from '@planhub/shared';
import { noteReadBytes } from '../read-bytes.ts';
import type { StreamEntry } from './redis-replies.ts';
import { entryObject, type SkippedEntry } from '../skipped-events.ts';

/**
 * Reading the workspace log when an entry may not be an event (hand-written, or left by an earlier build). The log's
 * entries are independent records, and every read of it starts at or before such an entry until retention drops it:
 * failing the read would leave every later event unreadable and the workspace's feed deaf (its read-back retrying
 * forever while live events wait behind it). So a reader skips the entry, and the store names it once, as an error
 * with the log's key and the entry's id, for an operator to repair or delete; its id still orders the log, so
 * cursors before and after it keep working. Decoding checks only that the text is a JSON object (the parse every
 * read does anyway), nothing more per event.
 */

/** One log entry as an event, or undefined (and named) when its text is not an event's JSON. */
export const envelopeOf = (streamKey: string, [id, fields]: StreamEntry, skipped: SkippedEntry) => {
  const at = fields.indexOf('e');
  const text = at < 0 ? undefined : fields[at + 1];
  if (text === undefined) return void skipped(streamKey, id, 'it has no event field');
  const value = entryObject(text, streamKey, id, skipped);
  return value && noteReadBytes(withEventId(id, value as unknown as NewEvent), text.length);
};

/**
 * Up to `count` events, reading on past skipped entries so a short page still means the end of the log (the feed's
 * read-back and paging readers rely on it). `page` reads from a bound in one direction; `next` is the bound after
 * the last entry it returned. With no corrupt entry this is the one read it always was.
 */
export const readSkipping = async (
  streamKey: string,
  first: string,
  count: number,
  page: (bound: string, count: number) => Promise<StreamEntry[]>,
  next: (lastId: string) => string | undefined,
  skipped: SkippedEntry,
): Promise<EventEnvelope[]> => {
  const events: EventEnvelope[] = [];
  let bound: string | undefined = first;
  do {
    const want = count - events.length;
    const entries = await page(bound, want);
    for (const entry of entries) {
      const event = envelopeOf(streamKey, entry, skipped);
      if (event) events.push(event);
    }
    const last = entries.at(-1);
    if (entries.length < want || last === undefined) break;
    bound = next(last[0]);
  } while (bound !== undefined && events.length < count);
  return events;
};
