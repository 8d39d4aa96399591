import { z } from 'zod';
import { TODO_LIST_STATUSES } from '../shapes/todo-list.ts';
import { PlanModificationRequestSchema } from './plan-mode-model.ts';
import { PlanSchema, ProgressSchema, StepSchema } from '../model.ts';

/** getWorkspace's building blocks (kept apart from planhub.ts, whose every export is a tool). */

/** A step as the overview shows it: no outputs (they can be large), enough to draw statuses and dependencies. */
export const StepSummarySchema = StepSchema.pick({
  id: true,
  step_id: true,
  sequence: true,
  description: true,
  status: true,
  result: true,
  error: true,
  provides: true,
  depends_on: true,
  blocked_by: true,
  started_at: true,
  completed_at: true,
}).extend({
  /** In progress with no update for the server's stall time (PLANHUB_STALL_AFTER_MS). */
  stalled: z.boolean().optional(),
});
export type StepSummary = z.infer<typeof StepSummarySchema>;

export const PlanSummarySchema = PlanSchema.pick({
  plan_id: true,
  agent_id: true,
  title: true,
  status: true,
  dialect: true,
  created_at: true,
  updated_at: true,
  approval_message: true,
  summary: true,
}).extend({
  progress: ProgressSchema,
  steps: z.array(StepSummarySchema),
});
export type PlanSummary = z.infer<typeof PlanSummarySchema>;

export const PendingApprovalSchema = z.object({
  plan_id: z.string(),
  agent_id: z.string(),
  title: z.string(),
  message: z.string().nullable(),
  requested_at: z.string(),
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

/** A plan_modify (002) waiting for a decision. */
export const PendingModificationSchema = PlanModificationRequestSchema.extend({
  plan_id: z.string(),
  agent_id: z.string(),
});
export type PendingModification = z.infer<typeof PendingModificationSchema>;

export const TodoSummarySchema = z.object({
  content: z.string(),
  /** 001 and 002 items share these three statuses, so the renderers of either apply. */
  status: z.enum(TODO_LIST_STATUSES),
  active_form: z.string().optional(),
  priority: z.string().optional(),
});
export type TodoSummary = z.infer<typeof TodoSummarySchema>;

export const TaskSummarySchema = z.object({
  id: z.string(),
  subject: z.string(),
  status: z.string(),
  owner: z.string().optional(),
  blocked_by: z.array(z.string()),
});
export type TaskSummary = z.infer<typeof TaskSummarySchema>;

export const AgentSummarySchema = z.object({
  agent_id: z.string(),
  /** Most recent unfinished plan, as seed-000 tools without plan_id mean it. */
  current_plan_id: z.string().nullable(),
  /** Newest first: every unfinished plan, then the most recent finished ones up to plans_per_agent. */
  plans: z.array(PlanSummarySchema),
  pending_approvals: z.array(PendingApprovalSchema),
  pending_modifications: z.array(PendingModificationSchema),
  /** 002's plan mode, when the agent uses it. */
  mode: z.string().nullable(),
  /** The agent's todo list (001 `todo`, 002 `todo_write`), empty when it has none. */
  todos: z.array(TodoSummarySchema),
  /** Workspace tasks (003) this agent owns. */
  tasks: z.array(TaskSummarySchema),
  /** Whether the agent holds a connection to any node now. */
  online: z.boolean().optional(),
  /** Its last connection, call or disconnection seen by any node; null when none was seen. */
  last_seen_at: z.string().nullable().optional(),
});
export type AgentSummary = z.infer<typeof AgentSummarySchema>;
