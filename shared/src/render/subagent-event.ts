import type { EventEnvelope } from '../events.ts';
import { neutralize } from './neutralize.ts';
import { pythonJsonDumps } from './python-json.ts';
import { pythonText } from './python-text.ts';

/** The envelope fields the notification reads; event_type as text, so an event type newer than this code renders too. */
export type SubagentEventInput = Pick<EventEnvelope, 'source_agent' | 'source_plan_title' | 'source_step_id'> & {
  event_type: string;
  payload: Readonly<Record<string, unknown>>;
};

/**
 * Python's truth test, which is how this reads upstream's optional lines (PlanHub's reading of its formatter, not a
 * documented rule): empty text, list or object and 0 leave a line out.
 */
const truthy = (value: unknown): boolean => {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
};

/**
 * Text an agent wrote, made safe to put on a line of its own: control and bidi characters shown (neutralize), and
 * every line after the first indented, so that no title, description or result can start a line with a forged
 * `[SUBAGENT event=…]` header that a subscriber's model would take for an event.
 */
const safe = (text: string): string => neutralize(text).replace(/\n/g, '\n  ');

/** A value in an f-string (pythonText), made safe: only a string can hold what safe changes. */
const safeText = (value: unknown): string => safe(pythonText(value));

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;

const planCreatedLines = (payload: SubagentEventInput['payload']): string[] => {
  const steps = payload.steps;
  if (!truthy(steps) || !Array.isArray(steps)) return [];
  return ['Steps:', ...steps.map((s) => `  - ${safeText(field(s, 'step_id'))}: ${safeText(field(s, 'description'))}`)];
};

const stepCompletedLines = (event: SubagentEventInput): string[] => {
  const { output, result } = event.payload;
  return [
    ...(truthy(event.source_step_id) ? [`Step: ${safeText(event.source_step_id)}`] : []),
    ...(truthy(output) ? [`Output: ${pythonJsonDumps(output)}`] : []),
    ...(truthy(result) ? [`Result: ${safeText(result)}`] : []),
  ];
};

const planEndLines = (payload: SubagentEventInput['payload']): string[] => {
  const { summary, progress } = payload;
  const count = (key: string) => {
    const value = field(progress, key);
    return value === undefined ? '0' : safeText(value);
  };
  return [
    ...(truthy(summary) ? [`Summary: ${safeText(summary)}`] : []),
    ...(truthy(progress) ? [`Progress: ${count('completed')}/${count('total')} steps`] : []),
  ];
};

/**
 * Seed 000's `[SUBAGENT event=<type>]` notification: the text a host injects into the subscriber's session for each
 * pushed event, line for line as upstream's hosts write it (models were prompted to wait for exactly these messages).
 * `From:` always, `Plan:` when the event names a plan; then plan_created lists its steps, step_completed adds `Step:`,
 * `Output:` (the output as Python's json.dumps writes it) and `Result:`, plan_completed and plan_failed add `Summary:`
 * and `Progress: c/t steps`; every other type has the first lines only. Optional lines are left out when empty, as
 * Python's truth test leaves them out upstream. Unlike upstream, agents' texts cannot start a line (see safe).
 */
export const formatSubagentEvent = (event: SubagentEventInput): string => {
  const lines = [`[SUBAGENT event=${safe(event.event_type)}]`, `From: ${safeText(event.source_agent)}`];
  if (truthy(event.source_plan_title)) lines.push(`Plan: ${safeText(event.source_plan_title)}`);
  if (event.event_type === 'plan_created') lines.push(...planCreatedLines(event.payload));
  else if (event.event_type === 'step_completed') lines.push(...stepCompletedLines(event));
  else if (event.event_type === 'plan_completed' || event.event_type === 'plan_failed')
    lines.push(...planEndLines(event.payload));
  return lines.join('\n');
};
