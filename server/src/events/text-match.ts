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

/**
 * Whether an event mentions `needle` (case-insensitive): its type, agent, plan, step or anything in its payload,
 * which is what a person means by searching the event feed for a word.
 */
export const mentions = (event: EventEnvelope, needle: string): boolean => {
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
  return payloadText(event).includes(wanted);
};
