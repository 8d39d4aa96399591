import type { EventEnvelope } from '@planhub/shared';

const MAX_VALUE = 60;

const short = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const oneLine = (text ?? 'null').replace(/\s+/g, ' ');
  return oneLine.length > MAX_VALUE ? `${oneLine.slice(0, MAX_VALUE - 1)}…` : oneLine;
};

/** Payload fields that only repeat the envelope, or are too big for one line (the whole plan). */
const OMITTED = new Set(['plan', 'steps', 'agent_id', 'workspace']);

/**
 * One event as one line a person reads: time, type, who and which step, the plan's id (what `planhub approve`
 * takes), then the payload's fields as key=value (long values cut). `planhub events --json` prints the envelope
 * itself instead.
 */
export const eventLine = (event: EventEnvelope): string => {
  const time = event.timestamp.slice(11, 23);
  const where = event.source_step_id ? `${event.source_agent}/${event.source_step_id}` : event.source_agent;
  const plan = event.source_plan_id === null ? [] : [`plan_id=${event.source_plan_id}`];
  const fields = Object.entries(event.payload)
    .filter(([key, value]) => !OMITTED.has(key) && value !== null && value !== undefined)
    .filter(([key, value]) => key !== 'plan_id' || value !== event.source_plan_id)
    .map(([key, value]) => `${key}=${short(value)}`);
  return [time, event.event_type.padEnd(18), where, ...plan, ...fields].join('  ').trimEnd();
};
