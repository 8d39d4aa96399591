import type { EventEnvelope } from '@planhub/shared';
import { MAX_EVENT_BYTES, serializedBytes } from '@planhub/shared';

/**
 * Bytes of events one answer carries at most (as JSON). A page of 500 events of up to 512 KiB each would be 256 MiB
 * for one call unit; past this the answer ends early with its cursor, and the caller reads on from there. Twice the
 * largest event, so an answer always has room for one.
 */
export const ANSWER_EVENT_BYTES = 2 * MAX_EVENT_BYTES;

/**
 * How many of `events` (oldest first) one answer carries: the longest run from the oldest end (a forward read, whose
 * cursor then stops at the last one kept) or from the newest end (a page back, whose next page starts before the
 * oldest one kept) that fits `budget`, and never none.
 */
export const eventsThatFit = (
  events: readonly EventEnvelope[],
  keep: 'oldest' | 'newest',
  budget = ANSWER_EVENT_BYTES,
): number => {
  let bytes = 0;
  for (let i = 0; i < events.length; i++) {
    bytes += serializedBytes(events[keep === 'oldest' ? i : events.length - 1 - i]);
    if (bytes > budget) return Math.max(1, i);
  }
  return events.length;
};
