import { z } from 'zod';
import { EVENT_PAYLOAD_SCHEMAS } from './event-payloads.ts';

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

const envelopeFields = {
  event_id: EventIdSchema,
  timestamp: z.string(),
  workspace: z.string(),
  source_agent: z.string(),
  source_plan_id: z.string().nullable(),
  source_plan_title: z.string().nullable(),
  source_step_id: z.string().nullable(),
  source_step_description: z.string().nullable(),
  source_step_sequence: z.number().int().nullable(),
};

/**
 * Seed 000's envelope (upstream's field names), canonical for PlanHub, as stores and the wire carry it: any event
 * type, the payload unchecked. Read payloads through TaskEventSchema / typedEvent below.
 */
export const EventEnvelopeSchema = z.object({
  ...envelopeFields,
  event_type: EventTypeSchema,
  payload: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>;

const buildEnvelope = <T extends EventType>(type: T) =>
  z.object({ ...envelopeFields, event_type: z.literal(type), payload: EVENT_PAYLOAD_SCHEMAS[type] });
type EnvelopeSchema<T extends EventType> = ReturnType<typeof buildEnvelope<T>>;
/** One envelope schema per event type, in EVENT_TYPES' order: the union's members, typed one by one. */
type EnvelopeSchemas<Types extends readonly EventType[]> = {
  -readonly [K in keyof Types]: Types[K] extends EventType ? EnvelopeSchema<Types[K]> : never;
};

// Built once per type: zod compiles a schema on its first parse, and a schema made per call compiles on every call.
const ENVELOPES = new Map<EventType, EnvelopeSchema<EventType>>(EVENT_TYPES.map((type) => [type, buildEnvelope(type)]));
const envelopeOf = <T extends EventType>(type: T) => ENVELOPES.get(type) as EnvelopeSchema<T>;

/**
 * The envelope as a discriminated union on event_type: narrowing on the type gives the payload's fields. A new event
 * type is added to the lists above and to EVENT_PAYLOAD_SCHEMAS; this union is built from them.
 */
export const TaskEventSchema = z.discriminatedUnion(
  'event_type',
  // `map` cannot keep each position's own type; EnvelopeSchemas states it.
  EVENT_TYPES.map(envelopeOf) as unknown as EnvelopeSchemas<typeof EVENT_TYPES>,
);
export type TaskEvent = z.infer<typeof TaskEventSchema>;
export type EventOf<T extends EventType> = Extract<TaskEvent, { event_type: T }>;

/**
 * An event as the server answers it (z.input: the stored envelope, payload unchecked) and as a client reads it
 * (z.output: the typed union). Only its types are used: nothing parses answers with it; the SDK checks each event
 * with typedEvent itself, because what to do with one it cannot read is its choice, not a failed call.
 */
export const WireTaskEventSchema = EventEnvelopeSchema.pipe(TaskEventSchema);

/**
 * The event with its payload checked against its type's schema; undefined when it is not one: an event type newer
 * than this code (a newer server wrote it), or a payload that does not fit its type. There is no catch-all member in
 * the union for those: a member with `event_type: string` would stop `event_type === 'x'` from narrowing the payload.
 * What it returns is the event itself, not zod's copy: the copy leaves out fields the schemas do not name inside
 * nested objects (004's step `index`) and beside the payload, and the schemas transform nothing.
 */
export const typedEvent = (event: unknown): TaskEvent | undefined =>
  TaskEventSchema.safeParse(event).success ? (event as TaskEvent) : undefined;

/** Narrows an event to one type with its payload checked, e.g. `eventOf(e, 'plan_rejected')?.payload.reason`. */
export const eventOf = <T extends EventType>(event: EventEnvelope, type: T): EventOf<T> | undefined =>
  event.event_type === type && envelopeOf(type).safeParse(event).success ? (event as EventOf<T>) : undefined;

/** Narrows an already typed event by its type, also where the type is a parameter (`event_type === type` is not). */
export const isEventOf = <T extends EventType>(event: TaskEvent, type: T): event is EventOf<T> =>
  event.event_type === type;

/** An event before the log has given it an id. */
export type NewEvent = Omit<EventEnvelope, 'event_id'>;

/**
 * `event` with the id its log gave it, the id first. Object.assign, not a spread: events come in many shapes, and
 * V8's slow path for spreading them cost every event the stores handle a few µs.
 */
export const withEventId = (eventId: string, event: NewEvent): EventEnvelope =>
  Object.assign({ event_id: eventId }, event);

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
