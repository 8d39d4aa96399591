import { z } from 'zod';

/** The twelve event types of seed 000, in its order. */
export const SEED_EVENT_TYPES = [
  'plan_created',
  'plan_started',
  'plan_completed',
  'plan_failed',
  'plan_cancelled',
  'step_added',
  'step_started',
  'step_completed',
  'step_failed',
  'step_skipped',
  'step_blocked',
  'step_unblocked',
] as const;

/** Approval of a plan (000's startPlan, 002's plan mode). */
export const APPROVAL_EVENT_TYPES = ['plan_approval_requested', 'plan_approved', 'plan_rejected'] as const;

/** Changes other than a plan's or a step's status: 002's modifications and modes, 001/002 todo lists, 003 tasks. */
export const OTHER_CHANGE_EVENT_TYPES = [
  'plan_modified',
  'todos_updated',
  'task_created',
  'task_updated',
  'task_deleted',
  'task_unblocked',
  'mode_changed',
] as const;

/**
 * What the server observes rather than an agent reporting it: an agent's first connection and last disconnection
 * across the nodes, and a step in progress with no update for the configured time. Nothing is changed on the agent's
 * behalf; these only inform.
 */
export const PRESENCE_EVENT_TYPES = ['agent_online', 'agent_offline', 'step_stalled'] as const;

/** Whether the server observed this event (presence, stalls) rather than an agent's call making it. */
export const isPresenceEvent = (type: string): boolean => (PRESENCE_EVENT_TYPES as readonly string[]).includes(type);

/** What the other dialects add on the same stream. */
export const EXTRA_EVENT_TYPES = [
  ...APPROVAL_EVENT_TYPES,
  ...OTHER_CHANGE_EVENT_TYPES,
  ...PRESENCE_EVENT_TYPES,
] as const;

export const EVENT_TYPES = [...SEED_EVENT_TYPES, ...EXTRA_EVENT_TYPES] as const;
export const EventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventTypeSchema>;

/** `<ms>-<seq>`: a Redis Stream id, or the memory store's equivalent. */
export const EventIdSchema = z.string().regex(/^\d+-\d+$/, 'an event id looks like 1700000000000-0');

/** Seed 000's envelope (upstream's field names), canonical for PlanHub. */
export const EventEnvelopeSchema = z.object({
  event_id: EventIdSchema,
  event_type: EventTypeSchema,
  timestamp: z.string(),
  workspace: z.string(),
  source_agent: z.string(),
  source_plan_id: z.string().nullable(),
  source_plan_title: z.string().nullable(),
  source_step_id: z.string().nullable(),
  source_step_description: z.string().nullable(),
  source_step_sequence: z.number().int().nullable(),
  payload: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>;

/** An event before the log has given it an id. */
export type NewEvent = Omit<EventEnvelope, 'event_id'>;

const parseId = (id: string): [number, number] => {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
};

/** Orders event ids the way the log does (numerically, milliseconds then sequence). */
export const compareEventIds = (a: string, b: string): number => {
  const [am, as] = parseId(a);
  const [bm, bs] = parseId(b);
  return am !== bm ? am - bm : as - bs;
};
