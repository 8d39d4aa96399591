import { z } from 'zod';
import { TODO_LIST_ACTIONS, TODO_LIST_STATUSES, TodoListItemSchema } from '../shapes/todo-list.ts';
import { MAX_ITEM_BYTES, fitsBytes } from '../limits.ts';
import { IdArg } from './common.ts';
import { defineTool } from './define.ts';

/* Every export of this file is a tool (catalog.ts spreads the module); shapes live in ../shapes/. */

/**
 * Items are checked by the core, not here, so any bad item, even one that is not an object, is refused with the seed's
 * own message ("Todo 2 missing required fields (content, status, activeForm)"); the metadata gives LLM hosts the real
 * item schema.
 */
const TodoItemArg = z
  .custom<Record<string, unknown>>()
  // Items keep extra keys (seed 001 round-trips them), so the whole item is capped, as the JSON it is stored as.
  .refine(fitsBytes(MAX_ITEM_BYTES), {
    message: `a todo item may be at most ${MAX_ITEM_BYTES} bytes as JSON, extra keys included`,
  })
  .meta({
    type: 'object',
    properties: {
      content: { type: 'string', description: 'Imperative: "Run tests", "Build project".' },
      activeForm: { type: 'string', description: 'Present continuous: "Running tests", "Building project".' },
      status: { type: 'string', enum: [...TODO_LIST_STATUSES] },
    },
    required: ['content', 'status', 'activeForm'],
  });

const Counts = {
  count: z.number().int(),
  pending: z.number().int(),
  in_progress: z.number().int(),
  completed: z.number().int(),
};

export const todo = defineTool({
  name: 'todo',
  dialect: '001',
  readOnly: false,
  description:
    'Your own todo list, to stay on track through long multi-step work (it is for you, not a progress report for ' +
    'the user). create: start a list when a task has several steps. update: send the FULL list again with new ' +
    'statuses after each step; mark an item completed right after finishing it, and only when it is really done; ' +
    'keep exactly one item in_progress. list: read the list back. Each item needs content (imperative: "Run tests"), ' +
    'activeForm (present continuous: "Running tests") and status (pending | in_progress | completed). You will be ' +
    'reminded of the list before your turns, so you need not list it repeatedly.',
  input: z.object({
    action: z.string().meta({
      enum: [...TODO_LIST_ACTIONS],
      description: 'create (replace the list), update (replace the list), list (read it).',
    }),
    todos: z
      .array(TodoItemArg)
      .optional()
      .describe('The complete list for create and update (left out: an empty list); ignored for list.'),
  }),
  output: z.object({
    status: z.enum(['created', 'updated', 'listed']),
    ...Counts,
    todos: z.array(TodoListItemSchema),
    /** Set when a create or update without todos emptied a list that had items. */
    warning: z.string().optional(),
  }),
});

/**
 * Not a seed tool: what a host injects before each model request (seed 001's hooks-todo-reminder). Read-only, so
 * dashboards may read any agent's list; `throttled` is true right after the agent wrote its list itself.
 */
export const todoReminder = defineTool({
  name: 'todoReminder',
  dialect: 'planhub',
  readOnly: true,
  description:
    "The todo reminder of seed 001 for an agent's list: the <system-reminder> block to inject before each model " +
    'request (with the gentle-reminder preamble only when the todo tool was not used recently), and its summary.',
  input: z.object({
    agent_id: IdArg.optional().describe('Whose list; defaults to the caller.'),
    quiet_ms: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600 * 1000)
      .optional()
      .describe('Without used_recently: a write of the list this recent (ms, default 30000) counts as recent use.'),
    used_recently: z
      .boolean()
      .optional()
      .describe("Whether the todo tool was among the host's last three tool calls (upstream's rule)."),
  }),
  output: z.object({
    agent_id: z.string(),
    /** The block to inject, or null when there is nothing to say (recent use and an empty list). */
    reminder: z.string().nullable(),
    used_recently: z.boolean(),
    /** Same as used_recently (the preamble is left out); kept for earlier hosts. */
    throttled: z.boolean(),
    summary: z.string(),
    todos: z.array(TodoListItemSchema),
    ...Counts,
    updated_at: z.string().nullable(),
  }),
});
