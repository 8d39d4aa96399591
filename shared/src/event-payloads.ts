import { z } from 'zod';
import { DependencyRefSchema, ProgressSchema } from './model.ts';

/**
 * The payload of each event type. Payloads are loose objects: a dialect may add fields, and a consumer reads the
 * ones named here with their types instead of guessing. A new event type gets its schema here and its name in the
 * type lists of events.ts; the discriminated union below picks it up.
 */
const stepOutcome = z
  .object({
    result: z.string().nullable(),
    error: z.string().nullable(),
    output: z.record(z.string(), z.unknown()).optional(),
    provides: z.string().nullable().optional(),
  })
  .loose();

const planEnd = z
  .object({
    summary: z.string().nullable(),
    // Events logged before upstream's name `percent` was added to the progress carry `percentage` only.
    progress: ProgressSchema.extend({ percent: z.number().optional() }),
    /** Set when a plan was completed with steps still open (they are listed in unfinished_steps). */
    warning: z.string().optional(),
    unfinished_steps: z
      .array(z.object({ step_id: z.string(), sequence: z.number().int(), description: z.string(), status: z.string() }))
      .optional(),
  })
  .loose();

const stepList = z.array(z.object({ step_id: z.string(), sequence: z.number().int(), description: z.string() }));

/**
 * Which ended step made a waiting step ready, as every server since the object form writes it. `plan_id` is null for
 * a step resolved from a plan that no longer names it.
 */
export const UnblockedBySchema = z
  .object({ agent_id: z.string(), plan_id: z.string().nullable(), step_id: z.string() })
  .loose();
export type UnblockedBy = z.infer<typeof UnblockedBySchema>;

/**
 * Events logged before the object form carry `"<agent_id>:<step_id>"`, and a log keeps them across upgrades, so the
 * string stays in the union; `unblockedBy(event)` reads either form as the object.
 */
const unblockedBy = z.union([UnblockedBySchema, z.string()]);

const taskChange = z.object({ task_id: z.string(), subject: z.string() }).loose();
/** Why a task was deleted (`deleted`, `all_completed`) or unblocked (`blocker_completed`, …). */
const taskChangeWithReason = taskChange.extend({ reason: z.string().optional() });

export const EVENT_PAYLOAD_SCHEMAS = {
  plan_created: z.object({ steps: stepList }).loose(),
  plan_started: z.object({ message: z.string().nullable().optional() }).loose(),
  plan_completed: planEnd,
  plan_failed: planEnd,
  plan_cancelled: planEnd,
  step_added: z.object({}).loose(),
  step_started: stepOutcome,
  step_completed: stepOutcome,
  step_failed: stepOutcome,
  step_skipped: stepOutcome,
  step_blocked: z.object({ blocked_by: z.array(DependencyRefSchema) }).loose(),
  step_unblocked: z
    .object({
      /** Every key of the step's received outputs (`<agent_id>:<step_id>`, and `provides` names). */
      received_outputs: z.array(z.string()),
      /**
       * The received outputs themselves, key → value (absent in events logged before they were sent). An event
       * that all of them would take past the event cap (MAX_EVENT_BYTES) carries a marker in place of each one
       * `outputs_omitted` names.
       */
      outputs: z.record(z.string(), z.unknown()).optional(),
      /**
       * The keys whose values `outputs` left out to keep the event within the cap, in key order; absent when it
       * holds every one. The step's received_outputs (getPlanStatus) still have them all.
       */
      outputs_omitted: z.array(z.string()).optional(),
      unblocked_by: unblockedBy,
      /** unblocked_by's agent, kept for readers of the earlier string form. */
      unblocked_by_agent: z.string().optional(),
    })
    .loose(),
  plan_approval_requested: z.object({ message: z.string().nullable(), steps: stepList }).loose(),
  plan_approved: z.object({ approved_by: z.string(), agent_id: z.string() }).loose(),
  plan_rejected: z.object({ rejected_by: z.string(), agent_id: z.string(), reason: z.string().nullable() }).loose(),
  /** 002's modification requests and decisions carry their `reason`; 004's step changes do not. */
  plan_modified: z.object({ reason: z.string().optional() }).loose(),
  todos_updated: z.object({ dialect: z.string() }).loose(),
  task_created: taskChange,
  task_updated: taskChange,
  task_deleted: taskChangeWithReason,
  task_unblocked: taskChangeWithReason,
  mode_changed: z
    .object({
      agent_id: z.string(),
      from: z.string(),
      to: z.string(),
      goal: z.string().nullable(),
      plan_id: z.string().nullable(),
    })
    .loose(),
  agent_online: z.object({ last_seen_at: z.string() }).loose(),
  agent_offline: z.object({ last_seen_at: z.string(), reason: z.enum(['disconnected', 'node_lost']) }).loose(),
  step_stalled: z
    .object({ last_update_at: z.string(), stalled_for_ms: z.number(), stall_after_ms: z.number() })
    .loose(),
} as const;
