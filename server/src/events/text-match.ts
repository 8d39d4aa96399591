import type { EventEnvelope } from '@planhub/shared';

/**
 * The last event's payload as lowercase JSON: the hub hands each event to every waiting search of the workspace one
 * after another, so one remembered text serves them all. Only one: a text remembered per envelope would live as long
 * as the memory store's log keeps the envelope, outside its event-byte budget.
 */
let last: { event: EventEnvelope; text: string } | undefined;

const payloadText = (event: EventEnvelope): string => {
  if (last?.event !== event) last = { event, text: JSON.stringify(event.payload).toLowerCase() };
  return last.text;
};

/** Payload bytes a text search reads per unit of the caller's call budget: a frame's unit (1 per 16 KiB). */
export const SEARCHED_BYTES_PER_UNIT = 16 * 1024;

/** Payload text one call's search reads at most before it answers its cursor (4 MiB: a few ms of the node). */
export const SEARCHED_BYTES_BUDGET = 4 * 1024 * 1024;

/** What the payload text a search read costs the caller, beyond the entries it looked at. */
export const searchCost = (bytes: number): number => Math.floor(bytes / SEARCHED_BYTES_PER_UNIT);

/**
 * Whether an event mentions `needle` (case-insensitive): its type, agent, plan, step or anything in its payload,
 * which is what a person means by searching the event feed for a word. `searched` adds up the payload text read:
 * a search costs what it reads, which grows with the payloads, not with the entries (a scan of 1,000 events of
 * 60 KiB read 64 MiB for a charge of 11 units).
 */
export const mentions = (event: EventEnvelope, needle: string, searched?: { bytes: number }): boolean => {
  const wanted = needle.toLowerCase();
  const fields = [
    event.event_type,
    event.source_agent,
    event.source_plan_id,
    event.source_plan_title,
    event.source_step_id,
    event.source_step_description,
  ];
  for (const field of fields) if (field?.toLowerCase().includes(wanted)) return true;
  const payload = payloadText(event);
  if (searched) searched.bytes += payload.length;
  return payload.includes(wanted);
};
