import { z } from 'zod';
import { MAX_ARRAY, MAX_DESCRIPTION, MAX_ID, MAX_TITLE } from '../limits.ts';
import { TASK_UPDATE_STATUSES, TaskViewSchema } from '../shapes/task-list.ts';
import { defineTool } from './define.ts';

/** Task ids are decimal strings; the format is checked by the core so the error reads like the seed's. */
const TaskIdArg = z.string().max(MAX_ID).describe('A task id such as "1" (see TaskList).');
const TaskIdList = z.array(TaskIdArg).max(MAX_ARRAY);
const Metadata = z.record(z.string(), z.unknown());

/**
 * Upstream's Go tools decode the arguments into a struct, where a JSON null is the zero value, as a missing field is,
 * never an error. So a top-level null reads as absent here; nulls inside metadata are kept (there they delete a key).
 */
const nullsAsAbsent = <S extends z.ZodObject>(schema: S) =>
  z.preprocess(
    (value: z.input<S>) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null))
        : value,
    schema,
  );

export const TaskCreate = defineTool({
  name: 'TaskCreate',
  dialect: '003',
  readOnly: false,
  description:
    'Create a task in the task list your team shares in this workspace. Use it for work of 3 or more steps, or when ' +
    'the user gives a list of things to do; skip it for a single trivial step. subject: a short imperative title ' +
    '("Fix login bug"); description: what done means, enough for another agent to pick it up; activeForm: present ' +
    'continuous ("Fixing login bug"). Tasks start pending. Check TaskList first to avoid duplicates, then set ' +
    'dependencies with TaskUpdate (addBlockedBy / addBlocks).',
  // Upstream checks no emptiness and Go reads a missing or null field as "": subject and description are stored as
  // sent, "" when absent. The advertised schema marks them optional, as it must accept every call the server does.
  input: nullsAsAbsent(
    z.object({
      subject: z.string().max(MAX_TITLE).default('').describe('A brief title.'),
      description: z
        .string()
        .max(MAX_DESCRIPTION)
        .default('')
        .describe('A detailed description of what needs to be done.'),
      activeForm: z.string().max(MAX_TITLE).optional().describe('Present continuous form, e.g. "Running tests".'),
      metadata: Metadata.optional().describe('Custom data to attach.'),
    }),
  ),
  output: z.object({ result: z.string(), task: TaskViewSchema }),
});

export const TaskGet = defineTool({
  name: 'TaskGet',
  dialect: '003',
  readOnly: true,
  description:
    'Read one task in full: subject, description, status, what blocks it and what it blocks, owner. Read it before ' +
    'starting or updating a task; start only when "Blocked by" is empty.',
  input: z.object({ taskId: TaskIdArg }),
  output: z.object({ result: z.string(), task: TaskViewSchema }),
});

export const TaskUpdate = defineTool({
  name: 'TaskUpdate',
  dialect: '003',
  readOnly: false,
  description:
    'Update a task. status: in_progress when you start it, completed only when it is FULLY done (tests pass, ' +
    'nothing partial; otherwise keep it in_progress and create a task for the blocker), deleted to remove it. ' +
    'Completing a task frees the tasks it blocks (a task_unblocked event tells their owners; do not poll). ' +
    'addBlockedBy / addBlocks add dependencies (cycles are refused); owner claims the task; metadata merges keys ' +
    '(null deletes a key). Empty strings leave a field unchanged. When every task is completed the list is cleared.',
  // A null field is absent, so it leaves the field unchanged as an empty string does.
  input: nullsAsAbsent(
    z.object({
      taskId: TaskIdArg,
      subject: z.string().max(MAX_TITLE).optional(),
      description: z.string().max(MAX_DESCRIPTION).optional(),
      activeForm: z.string().max(MAX_TITLE).optional(),
      status: z
        .string()
        .max(32)
        .optional()
        .meta({ enum: [...TASK_UPDATE_STATUSES], description: 'pending | in_progress | completed | deleted' }),
      addBlocks: TaskIdList.optional().describe('Tasks that cannot start until this one completes.'),
      addBlockedBy: TaskIdList.optional().describe('Tasks that must complete before this one can start.'),
      owner: z.string().max(MAX_ID).optional().describe('The agent responsible for the task.'),
      metadata: Metadata.nullable().optional().describe('Keys to merge; a key set to null is deleted.'),
    }),
  ),
  output: z.object({
    result: z.string(),
    /** The task after the update; absent when it was deleted or cleared with the rest. */
    task: TaskViewSchema.optional(),
    /** Tasks whose last open blocker this update resolved. */
    unblocked: z.array(z.string()),
    /** True when this update completed the last open task and the list was cleared. */
    cleaned_up: z.boolean(),
  }),
});

export const TaskList = defineTool({
  name: 'TaskList',
  dialect: '003',
  readOnly: true,
  description:
    'List every task of the workspace in id order: status, subject, owner and open blockers. Pick the lowest-id ' +
    'pending task with no owner and no blockers; after completing one, look for newly unblocked work.',
  input: z.object({}),
  output: z.object({ result: z.string(), tasks: z.array(TaskViewSchema) }),
});
