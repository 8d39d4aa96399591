import type { EventEnvelope } from '@planhub/shared';

/**
 * Each event's payload as lowercase JSON, made once: every waiting search of the workspace looks at each event, and
 * the hub hands them all the same envelope.
 */
const payloadTexts = new WeakMap<EventEnvelope, string>();

const payloadText = (event: EventEnvelope): string => {
  let text = payloadTexts.get(event);
  if (text === undefined) {
    text = JSON.stringify(event.payload).toLowerCase();
    payloadTexts.set(event, text);
  }
  return text;
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
