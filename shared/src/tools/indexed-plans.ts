import { z } from 'zod';
import { MAX_ARRAY, MAX_ID, MAX_RESULT, MAX_TITLE } from '../limits.ts';
import { PlanStatusSchema } from '../model.ts';
import { INDEXED_PLAN_STATUSES } from '../shapes/indexed-plan.ts';
import { OptionalPlanIdArg, StepTextArg, absentIfNull } from './common.ts';
import { folderOf } from '../working-dir-path.ts';
import { defineTool } from './define.ts';
import { laxInt } from './lax-int.ts';

const IndexedStatus = z.enum(INDEXED_PLAN_STATUSES, {
  error: (issue) =>
    `Invalid status ${JSON.stringify(issue.input)}. Valid statuses: ${INDEXED_PLAN_STATUSES.join(', ')}.`,
});
// Upstream's Path("") is the current folder, its default: "" reads as left out. "/srv/repo/" names "/srv/repo".
const WorkingDir = z
  .string()
  .max(1024)
  .optional()
  .transform((dir) => (dir === undefined || dir === '' ? undefined : folderOf(dir)))
  .optional()
  .describe('Groups your plans the way a project folder does; get_plan without plan_id looks in it.');
const Notes = z.string().max(MAX_RESULT);

export const create_plan = defineTool({
  name: 'create_plan',
  dialect: '004',
  readOnly: false,
  description:
    'Create a plan: a title and ordered steps, to break a multi-step task into parts and track them. It is active ' +
    'at once (no approval step). Steps may carry a status (pending by default; in_progress, completed, skipped) and ' +
    'notes. Keep the returned plan_id and mark steps with update_plan as you go; never recreate a plan to change it.',
  input: z.object({
    // Upstream's title and descriptions are plain `str`: an empty one is accepted, as the other dialects accept
    // an empty step text.
    title: z.string().trim().max(MAX_TITLE).describe('Title of the plan.'),
    steps: z
      .array(
        z.object({
          description: StepTextArg.describe('Description of this step.'),
          status: IndexedStatus.optional().describe('pending (default), in_progress, completed or skipped.'),
          notes: Notes.optional().describe('Optional notes for this step.'),
        }),
      )
      .max(MAX_ARRAY)
      .describe('The ordered steps.'),
    working_dir: WorkingDir,
  }),
  output: z
    .object({
      ok: z.literal(true),
      plan_id: z.string(),
      title: z.string(),
      steps_count: z.number().int(),
      error: z.null(),
    })
    .loose(),
});

export const update_plan = defineTool({
  name: 'update_plan',
  dialect: '004',
  readOnly: false,
  description:
    'Set the status (default completed) and optionally the notes of one step, by zero-based step_index. Mark a step ' +
    'completed only when it is fully done; in_progress when you start it; skipped when it is no longer needed. Use ' +
    'notes for results, durations and issues. When every step is completed or skipped the plan is completed.',
  input: z.object({
    plan_id: z.string().min(1).max(MAX_ID).describe('ID of the plan to update.'),
    // Upstream's pydantic `int` also takes "0" and true: a model that quotes the index is served there.
    step_index: laxInt().describe('Zero-based index of the step (the first step is 0).'),
    status: IndexedStatus.default('completed').describe('pending, in_progress, completed (default) or skipped.'),
    // Upstream's notes=None: a host that sends every parameter sends null for "leave the notes as they are".
    notes: absentIfNull(Notes).describe('Notes to record on the step; omit (or null) to keep them, "" to clear them.'),
    working_dir: WorkingDir,
  }),
  output: z
    .object({
      ok: z.literal(true),
      plan_id: z.string(),
      step_description: z.string(),
      new_status: z.string(),
      error: z.null(),
      plan_status: PlanStatusSchema,
    })
    .loose(),
});

export const get_plan = defineTool({
  name: 'get_plan',
  dialect: '004',
  readOnly: true,
  description:
    'Read a plan by plan_id, or without it your most recently changed plan (within working_dir when given): every ' +
    'step with its index, status and notes, and how many are completed.',
  input: z.object({
    // Upstream tests `if input.plan_id:`, so "" (and None) read as no id there too.
    plan_id: OptionalPlanIdArg.describe('ID of the plan; omit for your most recent plan.'),
    working_dir: WorkingDir,
  }),
  output: z
    .object({
      ok: z.literal(true),
      plan_id: z.string(),
      title: z.string(),
      status: PlanStatusSchema,
      steps: z.array(
        z.object({ index: z.number().int(), description: z.string(), status: z.string(), notes: z.string() }).loose(),
      ),
      completed_count: z.number().int(),
      total_count: z.number().int(),
      error: z.null(),
    })
    .loose(),
});
