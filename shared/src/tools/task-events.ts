/** Seed 000's event tools: subscriptions (subscribeToTasks, listSubscriptions, unsubscribe) and the log's reads. */
import { z } from 'zod';
import { EventIdSchema, EventTypeSchema, WireTaskEventSchema } from '../events.ts';
import { IdArg, MAX_WAIT_SECONDS, OptionalAgentFilterArg, OptionalIdArg, waitSecondsOf } from './common.ts';
import { defineTool } from './define.ts';

/** Upstream's `filter` object of a subscription: unset parts are null. */
const SubscriptionFilterView = z.object({
  agent_id: z.string().nullable(),
  plan_id: z.string().nullable(),
  step_id: z.string().nullable(),
  event_types: z.array(z.string()),
});

/** The most events one getTaskEvents returns. */
const EVENTS_PER_READ = 500;

export const subscribeToTasks = defineTool({
  name: 'subscribeToTasks',
  dialect: '000',
  readOnly: true,
  description:
    "Receive other agents' task events as they happen. Subscribe BEFORE spawning subagents. agent_id: one agent or " +
    '"*" (any). event_types: which of plan_created, plan_started, plan_completed, plan_failed, plan_cancelled, ' +
    'step_added, step_started, step_completed, step_failed, step_skipped, step_blocked, step_unblocked (and the ' +
    'other PlanHub types). The matching recent history is replayed once (so plan_created of a subagent that started ' +
    'before you subscribed still arrives), then live events follow, never both for one event. after_event: the last ' +
    'event id you saw (replay starts after it; "0-0" for all retained history), or "$" for live events only. Do not ' +
    'poll.',
  input: z.object({
    agent_id: OptionalAgentFilterArg,
    event_types: z.array(EventTypeSchema).min(1).max(64),
    plan_id: OptionalIdArg,
    step_id: OptionalIdArg,
    after_event: EventIdSchema.or(z.literal('$'))
      .optional()
      .describe('Resume after this event id (replay starts after it); "$" for live events only.'),
  }),
  output: z
    .object({
      subscription_id: z.string(),
      agent_id: z.string(),
      event_types: z.array(z.string()),
      filter: SubscriptionFilterView,
      /** Events pushed from the history before this answer (0 when the stream was already running). */
      replayed: z.number().int(),
      /** Position of this connection's event stream: resume with after_event set to it (or to a later event id). */
      last_event_id: z.string(),
      message: z.string(),
      /**
       * Present when after_event was later than the newest event of the log (the log was reset): the history was
       * replayed from the oldest kept event instead.
       */
      warning: z.string().optional(),
    })
    .loose(),
});

export const getTaskEvents = defineTool({
  name: 'getTaskEvents',
  dialect: '000',
  readOnly: true,
  behaviour: { longPoll: { secondsArg: 'timeout', maxSeconds: MAX_WAIT_SECONDS } },
  description:
    'Read recent events of your workspace, newest last. after_event continues from a cursor (cursor, or last_event_id, of the ' +
    'previous answer); before_event pages back through older events (pass next_before of the previous answer); ' +
    'text keeps events that mention it. agent_online, agent_offline and step_stalled come only when named in ' +
    'event_types. One call looks at a bounded number of log entries (scanned): fewer ' +
    'events than limit with a non-null next_before means older events remain to look at. timeout (seconds, up to ' +
    '30) waits for the next matching event instead of returning empty; it needs a filter (agent_id, event_types, ' +
    'after_event, plan_id, step_id or text), since a wait on anything ends at the first event from any agent.',
  input: z.object({
    agent_id: OptionalAgentFilterArg,
    event_types: z
      .array(z.string().max(64))
      .max(64)
      .optional()
      .describe('Unknown types are dropped, as upstream does; if none is known, every type matches.'),
    plan_id: OptionalIdArg,
    step_id: OptionalIdArg,
    text: z.string().min(1).max(200).optional().describe('Only events mentioning this (case-insensitive).'),
    // Upstream's `events[-0:]` is every event: 0 reads as many as one call returns.
    limit: z
      .number()
      .int()
      .min(0)
      .max(EVENTS_PER_READ)
      .default(20)
      .transform((n) => (n === 0 ? EVENTS_PER_READ : n))
      .describe(`Events to return, at most ${EVENTS_PER_READ}; 0 for that most.`),
    // Any string, as upstream takes any: an id that is not one of this log's is read from the oldest kept event.
    after_event: z
      .string()
      .max(128)
      .optional()
      .describe('Continue after this event id (cursor or last_event_id of an earlier read); "$" for new events only.'),
    before_event: EventIdSchema.optional().describe('Page back: the newest matching events older than this id.'),
    // Upstream reads a timeout that is not a number as 0 (a numeric string as its number) rather than refusing it.
    timeout: z
      .number()
      .catch(({ value }) => waitSecondsOf(value))
      .default(0)
      .describe(`Seconds to wait for a matching event; clamped to 0–${MAX_WAIT_SECONDS}, as upstream does.`),
  }),
  output: z
    .object({
      /** Envelopes on the wire; the SDK hands them on as the typed union (TaskEvent). */
      events: z.array(WireTaskEventSchema),
      count: z.number().int(),
      /** The last event returned (upstream's field); with none, where the read stopped (as `cursor`). */
      last_event_id: z.string().nullable(),
      /** Where the read stopped, past entries the filter passed over: after_event for the next call. */
      cursor: z.string().nullable().optional(),
      /** Log entries this call looked at. */
      scanned: z.number().int().optional(),
      /** Where a backward read stopped: pass it as before_event to continue; null once the oldest event was seen. */
      next_before: z.string().nullable().optional(),
      /**
       * Present when after_event was not an event id of this log, or later than its newest event (the log was reset),
       * so the read started at the oldest kept event.
       */
      warning: z.string().optional(),
    })
    .loose(),
});

export const listSubscriptions = defineTool({
  name: 'listSubscriptions',
  dialect: '000',
  readOnly: true,
  description: 'List your event subscriptions.',
  input: z.object({}),
  output: z
    .object({
      subscriptions: z.array(
        z
          .object({
            subscription_id: z.string(),
            subscriber_agent: z.string(),
            filter: SubscriptionFilterView,
            agent_id: z.string(),
            event_types: z.array(z.string()),
            plan_id: z.string().optional(),
            step_id: z.string().optional(),
            created_at: z.string(),
            /**
             * Events after the subscription was made that matched the filter (the subscriber's own included, as upstream),
             * counted from the retained event log when listed; replayed history is not counted.
             */
            match_count: z.number().int(),
            /** False when the count stopped at the scan budget before reaching the subscription's creation (a lower bound). */
            match_count_complete: z.boolean(),
          })
          .loose(),
      ),
      count: z.number().int(),
    })
    .loose(),
});

export const unsubscribe = defineTool({
  name: 'unsubscribe',
  dialect: '000',
  readOnly: true,
  behaviour: { remembersAnswer: true },
  description: 'Remove one of your subscriptions (or all of them with all=true).',
  input: z.object({ subscription_id: IdArg.optional(), all: z.boolean().optional() }),
  output: z
    .object({
      success: z.boolean(),
      subscription_id: z.string().nullable(),
      removed: z.number().int(),
      message: z.string(),
    })
    .loose(),
});
