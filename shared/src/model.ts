import { z } from 'zod';

export const StepStatusSchema = z.enum(['pending', 'in_progress', 'completed', 'failed', 'skipped', 'blocked']);
export type StepStatus = z.infer<typeof StepStatusSchema>;

export const PlanStatusSchema = z.enum([
  'pending',
  'awaiting_approval',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
  'rejected',
]);
export type PlanStatus = z.infer<typeof PlanStatusSchema>;

export const FINISHED_PLAN_STATUSES: ReadonlySet<PlanStatus> = new Set([
  'completed',
  'failed',
  'cancelled',
  'rejected',
]);
export const ENDED_STEP_STATUSES: ReadonlySet<StepStatus> = new Set(['completed', 'failed', 'skipped']);

export const DialectSchema = z.enum(['000', '001', '002', '003', '004']);
export type Dialect = z.infer<typeof DialectSchema>;

/**
 * What a dependency's author may say about its target for people reading it (upstream TaskRef's display fields):
 * echoed wherever the dependency is shown, never used to find or match the step.
 */
export const DependencyDisplaySchema = z.object({
  agent_name: z.string().optional(),
  step_sequence: z.number().int().optional(),
  step_description: z.string().optional(),
});
export type DependencyDisplay = z.infer<typeof DependencyDisplaySchema>;

/** A reference to another agent's step; `plan_id` is filled in when the dependency is registered. */
export const DependencyRefSchema = z.object({
  agent_id: z.string(),
  step_id: z.string(),
  plan_id: z.string().optional(),
  ...DependencyDisplaySchema.shape,
});
export type DependencyRef = z.infer<typeof DependencyRefSchema>;

export const StepSchema = z.object({
  id: z.string(),
  step_id: z.string(),
  sequence: z.number().int(),
  description: z.string(),
  status: StepStatusSchema,
  result: z.string().optional(),
  error: z.string().optional(),
  notes: z.string().optional(),
  output: z.record(z.string(), z.unknown()).optional(),
  provides: z.string().optional(),
  depends_on: z.array(DependencyRefSchema).optional(),
  blocked_by: z.array(DependencyRefSchema).optional(),
  received_outputs: z.record(z.string(), z.unknown()).optional(),
  /** A validation step (seed 000): completed only with evidence received from other agents, or with an output. */
  validation_required: z.boolean().optional(),
  /** Extra fields of a dialect (002: files, verification, numeric id, local depends_on). */
  details: z.record(z.string(), z.unknown()).optional(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
});
export type Step = z.infer<typeof StepSchema>;

/** Who waits on a step: the waiting agent's plan and step. */
export const WaiterSchema = z.object({ agent_id: z.string(), plan_id: z.string(), step_id: z.string() });
export type Waiter = z.infer<typeof WaiterSchema>;

export const ProgressSchema = z.object({
  completed: z.number().int(),
  total: z.number().int(),
  percentage: z.number(),
  /** Upstream's name for `percentage` (same value). */
  percent: z.number(),
  failed: z.number().int(),
  skipped: z.number().int(),
  in_progress: z.number().int(),
  pending: z.number().int(),
  blocked: z.number().int(),
});
export type Progress = z.infer<typeof ProgressSchema>;

export const PlanSchema = z.object({
  plan_id: z.string(),
  workspace: z.string(),
  agent_id: z.string(),
  title: z.string(),
  status: PlanStatusSchema,
  dialect: DialectSchema,
  steps: z.array(StepSchema),
  /** Next number for `step_N`; step ids are never reused within a plan. */
  next_step_number: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
  summary: z.string().optional(),
  approval_message: z.string().optional(),
  /** The request_id of the startPlan that asked for approval: its retries answer the decision, not an error. */
  approval_request_id: z.string().optional(),
  decision: z.object({ by: z.string(), role: z.string(), reason: z.string().optional(), at: z.string() }).optional(),
  working_dir: z.string().optional(),
  /** Dialect-specific plan data (002's plan object and goal). */
  details: z.record(z.string(), z.unknown()).optional(),
  /** step_id → the steps of other agents waiting on it. */
  waiters: z.record(z.string(), z.array(WaiterSchema)),
});
export type Plan = z.infer<typeof PlanSchema>;
