import { z } from 'zod';
import { MAX_DESCRIPTION, MAX_ID, MAX_RESULT, MAX_TITLE } from '../limits.ts';
import { PlanStatusSchema, ProgressSchema, StepSchema, StepStatusSchema } from '../model.ts';
import { NAME_PATTERN, NAME_RULE } from '../protocol.ts';

export const IdArg = z.string().min(1).max(MAX_ID);
export const TitleArg = z.string().trim().min(1).max(MAX_TITLE);
export const DescriptionArg = z.string().trim().min(1).max(MAX_DESCRIPTION);
/** A step of createPlan's list: upstream takes any string there, an empty one too. */
export const StepTextArg = z.string().trim().max(MAX_DESCRIPTION);
export const ResultArg = z.string().max(MAX_RESULT);
/**
 * An optional argument a host may send as `null` for "not given" (Python's None, Go's zero value): read as absent,
 * as upstream reads it, rather than refused as the wrong type.
 */
export const absentIfNull = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
export const PlanIdArg = IdArg.describe('The plan to act on; defaults to your current (most recent unfinished) plan.');
/** "" as left out: what a strict-mode model sends for an optional string it has no value for. */
export const emptyAsAbsent = <T extends string | undefined>(value: T): T | undefined =>
  value === '' ? undefined : value;
/**
 * An optional id where upstream tests the argument for truth (`if plan_id:`, `if after_step_id:`) or does not check
 * it: an empty one reads as left out, as there, rather than refused.
 */
export const OptionalIdArg = z.string().max(MAX_ID).optional().transform(emptyAsAbsent).optional();
/** Why an agent id is refused: no agent can connect under it (the handshake's rule), so nothing could match it. */
const notAnAgentId = (input: unknown) =>
  `${JSON.stringify(input)?.slice(0, 140) ?? 'nothing'} is not an id any agent can connect as (${NAME_RULE}; check ` +
  'for spaces), so a wait or filter on it could never match';

/** Another agent, named where the call waits on or listens to it. */
export const AgentIdArg = z
  .string()
  // An empty id is refused in upstream's words for a missing one ("Each dependency must have …"), alone.
  .min(1, { abort: true })
  .max(MAX_ID)
  // A refinement, not .regex(): a refusal built from several branches of a union rewords a format issue by its code
  // ("must be a valid regex") and would lose this message.
  .refine((id) => NAME_PATTERN.test(id), { error: (issue) => notAnAgentId(issue.input) });

/** An optional agent filter: one agent, or "*" or "" (left out) for any. */
export const OptionalAgentFilterArg = z
  .string()
  .max(MAX_ID)
  .refine((id) => id === '' || id === '*' || NAME_PATTERN.test(id), { error: (issue) => notAnAgentId(issue.input) })
  .optional()
  .transform(emptyAsAbsent)
  .optional();

export const OptionalPlanIdArg = OptionalIdArg.describe(
  'The plan to act on; defaults to your current (most recent unfinished) plan.',
);

/**
 * A step as tools return it: the stored step without dialect internals (`details`), with both `id` and `step_id`.
 * The fields upstream always sends are always present, `null` when unset (hosts written against upstream read them).
 */
export const StepViewSchema = StepSchema.omit({ details: true })
  .extend({
    result: z.string().nullable(),
    error: z.string().nullable(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .loose();
export type StepView = z.infer<typeof StepViewSchema>;

/**
 * The flat top-level fields upstream answers a step change with (setStepStatus, addStep, addDependentStep,
 * completeStepWithOutput); PlanHub's `step` and `instruction` sit beside them.
 */
export const StepAnswerShape = {
  step_id: z.string(),
  sequence: z.number().int(),
  description: z.string(),
  status: StepStatusSchema,
  result: z.string().nullable(),
  error: z.string().nullable(),
  total_steps: z.number().int(),
  progress: ProgressSchema,
  message: z.string(),
};

/** A note of a 002 plan object (a risk, an alternative, a test): free text, or the small object the model sent. */
const PlanModeNoteSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);
export type PlanModeNote = z.infer<typeof PlanModeNoteSchema>;

/**
 * A note as one line: models send `{ risk, mitigation }` objects as often as text, and each field is part of what
 * is decided on. Read so by plan_exit's markdown and by the dashboard alike.
 */
export const planModeNoteText = (note: PlanModeNote): string =>
  typeof note === 'string'
    ? note
    : Object.entries(note)
        .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join('; ');

/**
 * A 002 plan's object as plan_exit submitted it (and plan_modify changed its steps since), on getPlanStatus of a
 * 002 plan: the approach, risks and files are what a person approves, and the dashboard reads plans only through
 * the views. A step's fields are found by its `step_id`.
 */
export const PlanModeViewSchema = z
  .object({
    goal: z.string(),
    scope: z.string().optional(),
    summary: z.string(),
    approach: z.string(),
    alternatives_considered: z.array(PlanModeNoteSchema),
    risks: z.array(PlanModeNoteSchema),
    files_to_create: z.array(z.string()),
    files_to_modify: z.array(z.string()),
    tests_to_write: z.array(PlanModeNoteSchema),
    estimated_complexity: z.string(),
    steps: z.array(
      z.object({
        step_id: z.string(),
        /** The number the plan gave the step (null for a step another dialect added with an id not `step_N`). */
        id: z.number().nullable(),
        files: z.array(z.string()),
        depends_on: z.array(z.number()),
        verification: z.string().nullable(),
      }),
    ),
  })
  .loose();
export type PlanModeView = z.infer<typeof PlanModeViewSchema>;

export const PlanViewSchema = z
  .object({
    plan_id: z.string(),
    agent_id: z.string(),
    title: z.string(),
    status: PlanStatusSchema,
    created_at: z.string(),
    completed_at: z.string().nullable(),
    summary: z.string().nullable(),
    /** Sequence of the step last set in_progress (upstream's current_step, kept after it ends); null until one is. */
    current_step: z.number().int().nullable(),
    progress: ProgressSchema,
    steps: z.array(StepViewSchema),
    received_outputs: z.record(z.string(), z.unknown()),
    /** 002 plans only: the plan object the agent submitted. */
    plan_mode: PlanModeViewSchema.optional(),
  })
  .loose();
export type PlanView = z.infer<typeof PlanViewSchema>;

/** getTaskEvents waits at most this long: a larger timeout is clamped to it, as upstream clamps it. */
export const MAX_WAIT_SECONDS = 30;

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A long-poll's timeout argument in seconds, read as upstream reads it (Python's `float(timeout)`, 0 when that
 * fails): a number as it is, a string holding a decimal number as that number, true as 1, anything else as 0. Not
 * clamped: the caller clamps it to its own range.
 */
export const waitSecondsOf = (value: unknown): number => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) return Number(value.trim());
  return 0;
};
