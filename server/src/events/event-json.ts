import type { NewEvent } from '@planhub/shared';
import { withEventId } from '@planhub/shared';
import { textBytes } from '../limits/text-bytes.ts';

/**
 * Each event's JSON, made once per commit. A commit's events were stringified three times on the memory store (the
 * size cap, the workspace quota, the log's byte budget) and twice on Redis (the size cap, the script's arguments): on
 * a createPlan, whose event lists every step, that was a tenth of the node's CPU. Events are not changed once a
 * commit holds them, so the text of the object is the text of the event.
 *
 * Only the call's own event objects are keys, never the envelopes a log keeps: a text remembered for a kept
 * envelope would stay on the heap as long as the envelope, doubling what the memory store's event-byte budget holds.
 */
const texts = new WeakMap<NewEvent, string>();

/** JSON.stringify(event), remembered for the object (throws as JSON.stringify does, e.g. on a BigInt). */
export const eventJson = (event: NewEvent): string => {
  let text = texts.get(event);
  if (text === undefined) {
    text = JSON.stringify(event);
    texts.set(event, text);
  }
  return text;
};

/** UTF-8 bytes of the text `make` gives, the measure of every byte cap; Infinity for what JSON cannot hold. */
const bytesOf = (make: () => string): number => {
  try {
    return textBytes(make());
  } catch {
    return Number.POSITIVE_INFINITY;
  }
};

/** The event's JSON in UTF-8 bytes (Infinity for what JSON cannot hold). */
export const eventBytes = (event: NewEvent): number => bytesOf(() => eventJson(event));

/** The text of `withEventId(eventId, event)` before its event's own: the id comes first. */
const head = (eventId: string) => `{"event_id":${JSON.stringify(eventId)}`;

/**
 * The JSON of `withEventId(eventId, event)`, made from the event's own text. An event that names an event_id of
 * its own (none does) keeps it in its place, so it is stringified as it is. This relies on an event's top-level
 * fields being the named ones of its envelope (plan-events.ts): an integer-like key or a toJSON method would change
 * the real text's order.
 */
export const envelopeJson = (eventId: string, event: NewEvent): string => {
  if (Object.hasOwn(event, 'event_id')) return JSON.stringify(withEventId(eventId, event));
  const text = eventJson(event);
  return text === '{}' ? `${head(eventId)}}` : `${head(eventId)},${text.slice(1)}`;
};

/** The UTF-8 bytes of `envelopeJson(eventId, event)` (Infinity for what JSON cannot hold). */
export const envelopeBytes = (eventId: string, event: NewEvent): number => bytesOf(() => envelopeJson(eventId, event));
