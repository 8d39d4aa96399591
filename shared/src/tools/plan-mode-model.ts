import { z } from 'zod';
import { MAX_ARRAY, MAX_DESCRIPTION, MAX_ID, MAX_NOTE_BYTES, MAX_RESULT, fitsBytes } from '../limits.ts';
import { ResultArg, StepTextArg, absentIfNull } from './common.ts';

/** Seed 002's data shapes, shared by its tools, the server and the SDK (no tools here: catalog.ts spreads tool files). */

/** Tools a host must refuse while the agent explores in plan mode (seed 002), until plan_exit presents the plan. */
export const PLAN_MODE_BLOCKED_TOOLS = ['write_file', 'cron_create', 'cron_delete'] as const;

/**
 * Upstream has one `cron` tool whose `action` says what it does: its writing actions are blocked in plan mode like the
 * seed's cron_create / cron_delete, its reading ones stay allowed.
 */
const PLAN_MODE_BLOCKED_CRON_ACTIONS: readonly string[] = ['create', 'delete'];

/** Whether a call of upstream's `cron` tool writes (and so is blocked while the agent explores in plan mode). */
export const isBlockedCronCall = (name: string, args: unknown): boolean => {
  if (name !== 'cron' || typeof args !== 'object' || args === null) return false;
  const { action } = args as { action?: unknown };
  return typeof action === 'string' && PLAN_MODE_BLOCKED_CRON_ACTIONS.includes(action);
};

/**
 * Whether a host must refuse a call, given the `blocked_tools` plan_status answers (empty outside plan mode): a tool
 * it names, or upstream's `cron` with a writing action while any tool is blocked.
 */
export const isCallBlocked = (blockedTools: readonly string[], name: string, args: unknown): boolean =>
  blockedTools.includes(name) || (blockedTools.length > 0 && isBlockedCronCall(name, args));

/** Upstream's tool result for a call the host refuses in plan mode, to hand the model instead of running the tool. */
export const planModeBlockedMessage = (name: string): string =>
  `Tool "${name}" is blocked in plan mode. Use plan_manage(action: "exit") to present your implementation plan first.`;

export const PlanModeSchema = z.enum(['normal', 'plan', 'awaiting_approval', 'executing']);
export type PlanMode = z.infer<typeof PlanModeSchema>;

const MAX_PATH = 1000;
/**
 * A file of the plan's lists. Upstream checks only that each list is an array, and models often send file objects
 * (`{ path, action }`, `{ path, purpose }`): text is kept, an object is read by its path (`path`, `file` or `name`)
 * or else as its JSON, so a stored list is text whatever was sent (the markdown and the dashboard print it).
 */
const FileObject = z
  .record(z.string(), z.unknown())
  .refine(fitsBytes(MAX_NOTE_BYTES), { message: `a file object may be at most ${MAX_NOTE_BYTES} bytes as JSON` });
const pathOf = (file: Record<string, unknown>): string => {
  const named = [file.path, file.file, file.name].find((value) => typeof value === 'string');
  return typeof named === 'string' ? named : JSON.stringify(file);
};
/**
 * Any other item upstream lets through reads as text too (a null as an empty item), so the tool list can advertise
 * only the two forms a model should send.
 */
const asFileForm = (item: unknown): unknown => {
  if (item === null) return '';
  if (typeof item === 'number' || typeof item === 'boolean') return String(item);
  return Array.isArray(item) ? JSON.stringify(item) : item;
};
export const PathArg = z
  .preprocess(
    asFileForm,
    z.union([z.string(), FileObject], { error: 'each file must be a path (string) or an object with a path' }),
  )
  .transform((file) => (typeof file === 'string' ? file : pathOf(file)))
  .pipe(z.string().max(MAX_PATH, `a file path may be at most ${MAX_PATH} characters`));
/** An empty item names no file: it is left out, as upstream (which never reads the items) lets it through. */
export const Paths = z
  .array(PathArg)
  .max(MAX_ARRAY)
  .transform((files) => files.filter((file) => file !== ''));
/** Free text, or a small object (e.g. `{ risk, mitigation }`): upstream takes strings, models often send objects. */
export const Note = z.union([
  z.string().max(MAX_DESCRIPTION),
  z
    .record(z.string(), z.unknown())
    .refine(fitsBytes(MAX_NOTE_BYTES), { message: `a note object may be at most ${MAX_NOTE_BYTES} bytes as JSON` }),
]);
export const Notes = z.array(Note).max(MAX_ARRAY);
/**
 * A 002 step id: upstream requires only a number, so 1.5 and -1 are ids too (zod refuses NaN and ±Infinity, which
 * JSON cannot carry anyway). Ids need not be unique: see findPlanModeStep for what a repeated id names.
 */
export const StepNumber = z.number();

/** A number written as text ("2", "-1", "1.5"): what models send for an id more often than anything else. */
const NUMERIC_TEXT = /^\s*-?\d+(?:\.\d+)?\s*$/;
/**
 * The ids of a step's `depends_on`. Upstream checks only that the list is an array, so an id sent as text is taken as
 * the number it spells, and an empty item (which names no step) is left out; any other text could name no step, and
 * is refused with what to send instead.
 */
const DependencyIds = z
  .array(
    z.union([z.number(), z.literal(''), z.string().regex(NUMERIC_TEXT).transform(Number)], {
      error: 'each depends_on item must be a step id: a number, or a string of one such as "2"',
    }),
  )
  .max(MAX_ARRAY)
  .transform((ids) => ids.filter((id): id is number => id !== ''));

/**
 * Upstream reads a missing optional list and a `null` one alike (`plan.risks ?? []`), so null is absent here: a list
 * of the plan object becomes [] and a field of a step is left out.
 */
const listOrEmpty = <T extends z.ZodType>(list: T) => list.nullish().transform((value) => value ?? []);
/** Upstream's plan object checks only that its texts are strings, so an empty (or blank) one is accepted. */
const PlanText = StepTextArg;

export const PlanModeStepSchema = z.object({
  id: StepNumber.describe('The step number (1, 2, 3, …); give each step its own.'),
  description: PlanText.describe('What this step does.'),
  files: absentIfNull(Paths).describe('Files this step creates or changes.'),
  depends_on: absentIfNull(DependencyIds).describe('ids of steps of this plan that must be complete before this one.'),
  verification: absentIfNull(ResultArg).describe('How to check the step worked, e.g. the test command to run.'),
});
export type PlanModeStep = z.infer<typeof PlanModeStepSchema>;

/** Upstream's estimate scale; any other value (or none) reads as "medium", as upstream reads it. */
export const ComplexitySchema = z
  .enum(['small', 'medium', 'large'])
  .catch('medium')
  .default('medium')
  .describe('small, medium or large (anything else counts as medium).');

/** The optional lists default to empty, as upstream fills them, so every stored plan object has every field. */
export const ImplementationPlanSchema = z.object({
  summary: PlanText.describe('What the plan accomplishes.'),
  approach: z.string().trim().max(MAX_RESULT).describe('How it will be done.'),
  alternatives_considered: listOrEmpty(Notes).describe('Other approaches you evaluated, and why not.'),
  steps: z
    .array(PlanModeStepSchema)
    .min(1, 'a plan needs at least one step')
    .max(MAX_ARRAY)
    .describe('Ordered implementation steps.'),
  risks: listOrEmpty(Notes).describe('Known risks and their mitigations.'),
  files_to_create: listOrEmpty(Paths),
  files_to_modify: listOrEmpty(Paths),
  tests_to_write: listOrEmpty(Notes),
  estimated_complexity: ComplexitySchema,
});
export type ImplementationPlan = z.infer<typeof ImplementationPlanSchema>;

export const PlanModificationRequestSchema = z.object({
  step_id: StepNumber,
  reason: z.string(),
  new_description: z.string(),
  new_files: z.array(z.string()).optional(),
  new_verification: z.string().optional(),
  requested_by: z.string(),
  requested_at: z.string(),
});
export type PlanModificationRequest = z.infer<typeof PlanModificationRequestSchema>;

export const PersistentTodoStatusSchema = z.enum(['pending', 'in_progress', 'completed']);
export const TodoPrioritySchema = z.enum(['high', 'medium', 'low']);

export const PersistentTodoSchema = z.object({
  id: z.string().min(1).max(MAX_ID),
  content: z.string().max(MAX_DESCRIPTION),
  status: PersistentTodoStatusSchema,
  priority: TodoPrioritySchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type PersistentTodo = z.infer<typeof PersistentTodoSchema>;
