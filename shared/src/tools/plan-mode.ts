import { z } from 'zod';
import { MAX_ARRAY } from '../limits.ts';
import { ProgressSchema } from '../model.ts';
import { IdArg } from './common.ts';
import { defineTool } from './define.ts';
import {
  CompleteArgs,
  DecisionArgs,
  EnterArgs,
  ExitArgs,
  ModifyArgs,
  RejectArgs,
  StepCompleteArgs,
  TodoItemArg,
} from './plan-mode-args.ts';
import {
  ImplementationPlanSchema,
  PlanModeSchema,
  PlanModificationRequestSchema,
  PersistentTodoSchema,
} from './plan-mode-model.ts';
import {
  completeWording,
  enterWording,
  exitWording,
  modifyWording,
  stepCompleteWording,
  withUpstreamWording,
} from './plan-mode-wording.ts';

const PlanModeProgress = z.object({
  total_steps: z.number().int(),
  completed_steps: z.number().int(),
  next_step: z.number().nullable(),
});

export const plan_enter = defineTool({
  name: 'plan_enter',
  dialect: '002',
  readOnly: false,
  description:
    'Enter plan mode before complex work (a feature, a refactor, a change across several files); for a typo or a ' +
    'rename, just act. In plan mode you explore with read-only tools and write_file, cron_create and cron_delete are ' +
    'blocked. When you know what to do, present it with plan_exit, and do not start the work before the user ' +
    'approves it. Entering plan mode while executing an approved plan cancels that plan.',
  input: withUpstreamWording(z.object(EnterArgs), enterWording('plan_enter')),
  output: z
    .object({
      status: z.literal('entered'),
      mode: PlanModeSchema,
      goal: z.string(),
      scope: z.string().optional(),
      blocked_tools: z.array(z.string()),
      /** Set when the agent was executing an approved plan: entering plan mode cancelled it. */
      cancelled_plan_id: z.string().optional(),
      warning: z.string().optional(),
      message: z.string(),
    })
    .loose(),
});

export const plan_exit = defineTool({
  name: 'plan_exit',
  dialect: '002',
  readOnly: false,
  behaviour: { requestsDecision: true },
  description:
    'Leave plan mode by presenting your implementation plan for the user to approve. It does not start execution: ' +
    'the plan waits for the decision (plan_approved or plan_rejected event). Do not poll and do not start writing; ' +
    'when the user approves, call plan_approve, then work step by step with plan_step_complete.',
  input: withUpstreamWording(z.object(ExitArgs), exitWording('plan_exit')),
  output: z
    .object({
      status: z.literal('plan_presented'),
      mode: PlanModeSchema,
      plan_id: z.string(),
      awaiting_approval: z.boolean(),
      markdown: z.string(),
      /** The plan object as saved, with upstream's defaults filled in (empty lists, complexity "medium"). */
      plan: ImplementationPlanSchema,
      message: z.string(),
    })
    .loose(),
});

export const plan_status = defineTool({
  name: 'plan_status',
  dialect: '002',
  readOnly: true,
  description:
    'Your plan mode state: mode (normal, plan, awaiting_approval, executing), goal, the tools blocked right now, and ' +
    "the active plan's progress. Users and dashboards may pass agent_id to read another agent's state.",
  input: z.object({ agent_id: IdArg.optional().describe('Whose state to read (default: yours).') }),
  output: z
    .object({
      agent_id: z.string(),
      mode: PlanModeSchema,
      goal: z.string().optional(),
      scope: z.string().optional(),
      blocked_tools: z.array(z.string()),
      plan_id: z.string().optional(),
      plan_status: z.string().optional(),
      active_plan_id: z.string().optional(),
      active_plan_progress: z
        .object({
          total_steps: z.number().int(),
          completed_steps: z.number().int(),
          current_step: z.number().nullable(),
        })
        .optional(),
      pending_modification: PlanModificationRequestSchema.optional(),
    })
    .loose(),
});

const Decision = z
  .object({
    status: z.enum(['approved', 'rejected', 'modification_approved', 'modification_rejected']),
    /** null when a reject only left plan mode (nothing was presented). */
    plan_id: z.string().nullable(),
    plan_status: z.string().nullable(),
    mode: PlanModeSchema.optional(),
    /** A decided plan_modify: the step as it now stands, in the plan object's shape. */
    step: z
      .object({
        id: z.number().nullable(),
        description: z.string(),
        files: z.array(z.string()),
        verification: z.string().nullable(),
        status: z.string(),
      })
      .optional(),
    message: z.string(),
  })
  .loose();

export const plan_approve = defineTool({
  name: 'plan_approve',
  dialect: '002',
  readOnly: false,
  description:
    'Record that the user APPROVED: the plan waiting for approval starts executing, or the pending plan_modify ' +
    'request is applied. Call it only when the user has actually approved. An agent decides its own plans (relaying ' +
    "its user's answer); a user or dashboard names the plan (plan_id) or the agent (agent_id).",
  input: z.object(DecisionArgs),
  output: Decision,
});

export const plan_reject = defineTool({
  name: 'plan_reject',
  dialect: '002',
  readOnly: false,
  description:
    'Record that the user REJECTED: the plan waiting for approval is rejected and you return to normal mode, or the ' +
    'pending plan_modify request is dropped and the step stays as approved. Say why in reason. With nothing waiting ' +
    'for a decision it takes you out of plan mode from any mode (an approved plan you were executing is cancelled).',
  input: z.object(RejectArgs),
  output: Decision,
});

export const plan_step_complete = defineTool({
  name: 'plan_step_complete',
  dialect: '002',
  readOnly: false,
  description:
    'Mark one step of your approved plan complete, right after you finished and verified it. Steps whose ' +
    'depends_on are not complete yet are refused. Only report a step complete if its verification passed; ' +
    'if it did not, fix it or request a change with plan_modify.',
  input: withUpstreamWording(z.object(StepCompleteArgs), stepCompleteWording),
  output: z
    .object({
      status: z.literal('step_completed'),
      plan_id: z.string(),
      step_id: z.number(),
      verification_result: z.string(),
      progress: PlanModeProgress,
      unblocked: z.array(z.number()),
      message: z.string(),
    })
    .loose(),
});

export const plan_complete = defineTool({
  name: 'plan_complete',
  dialect: '002',
  readOnly: false,
  description:
    'Mark the whole plan complete and return to normal mode. Every step should be complete; if some were not done, ' +
    'say so honestly in deviations (they are recorded as skipped) instead of claiming them complete.',
  input: withUpstreamWording(z.object(CompleteArgs), completeWording('plan_complete')),
  output: z
    .object({
      status: z.literal('plan_completed'),
      plan_id: z.string(),
      summary: z.string(),
      deviations: z.array(z.unknown()),
      mode: PlanModeSchema,
      progress: ProgressSchema,
      /** Set when unfinished steps were completed away without deviations saying why. */
      warning: z.string().optional(),
    })
    .loose(),
});

export const plan_modify = defineTool({
  name: 'plan_modify',
  dialect: '002',
  readOnly: false,
  description:
    'Ask to change a step of your approved plan when you discover it must be done differently. The change needs ' +
    "the user's approval: it waits as a pending modification until plan_approve / plan_reject decide it (you get a " +
    'plan_modified event); meanwhile you may work on other steps, not on this one. Do not poll.',
  input: withUpstreamWording(z.object(ModifyArgs), modifyWording('plan_modify')),
  output: z
    .object({
      status: z.enum(['modification_requested', 'modification_approved']),
      plan_id: z.string(),
      step_id: z.number(),
      reason: z.string(),
      new_description: z.string(),
      awaiting_approval: z.boolean(),
      message: z.string(),
    })
    .loose(),
});

export const todo_read = defineTool({
  name: 'todo_read',
  dialect: '002',
  readOnly: true,
  description:
    'Read your persistent todo list (it survives sessions and restarts): every item with id, content, status, ' +
    'priority and timestamps. Read it when you resume work. Users and dashboards may pass agent_id.',
  input: z.object({ agent_id: IdArg.optional().describe('Whose list to read (default: yours).') }),
  output: z.object({ todos: z.array(PersistentTodoSchema), message: z.string().optional() }).loose(),
});

export const todo_write = defineTool({
  name: 'todo_write',
  dialect: '002',
  readOnly: false,
  description:
    'Replace your whole todo list (not a partial update). Use it only for genuinely complex work (3+ distinct ' +
    'steps). Keep exactly one item in_progress and mark items completed as soon as they are done. Items you leave ' +
    'out are kept as completed, unless every item you send is completed (then the list starts clean); an empty ' +
    'list clears it.',
  input: z.object({
    todos: z.array(TodoItemArg).max(MAX_ARRAY).describe('The complete list of todo items.'),
  }),
  output: z
    .object({ todos: z.array(PersistentTodoSchema), message: z.string().optional(), warning: z.string().optional() })
    .loose(),
});
