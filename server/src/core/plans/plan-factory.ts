import type { Dialect, Plan, Step, StepStatus } from '@planhub/shared';

export interface NewPlanInput {
  plan_id: string;
  workspace: string;
  agent_id: string;
  title: string;
  dialect: Dialect;
  steps: ReadonlyArray<{
    description: string;
    status?: StepStatus;
    notes?: string;
    details?: Record<string, unknown>;
    validation_required?: boolean;
  }>;
  now: string;
  working_dir?: string;
  details?: Record<string, unknown>;
}

export const newStep = (
  number: number,
  sequence: number,
  description: string,
  extra: Partial<Omit<Step, 'id' | 'step_id' | 'sequence' | 'description'>> = {},
): Step => ({
  id: `step_${number}`,
  step_id: `step_${number}`,
  sequence,
  description,
  status: 'pending',
  ...extra,
});

export const newPlan = (input: NewPlanInput): Plan => ({
  plan_id: input.plan_id,
  workspace: input.workspace,
  agent_id: input.agent_id,
  title: input.title,
  status: 'pending',
  dialect: input.dialect,
  steps: input.steps.map((s, i) =>
    newStep(i + 1, i + 1, s.description, {
      status: s.status ?? 'pending',
      ...(s.notes !== undefined ? { notes: s.notes } : {}),
      ...(s.validation_required === true ? { validation_required: true } : {}),
      ...(s.details !== undefined ? { details: s.details } : {}),
    }),
  ),
  next_step_number: input.steps.length + 1,
  created_at: input.now,
  updated_at: input.now,
  waiters: {},
  ...(input.working_dir !== undefined ? { working_dir: input.working_dir } : {}),
  ...(input.details !== undefined ? { details: input.details } : {}),
});

/** The plan's waiter lists, each a new array (the copies below share everything else they can). */
const copyWaiters = (plan: Plan): Plan['waiters'] =>
  Object.fromEntries(Object.entries(plan.waiters).map(([key, list]) => [key, [...list]]));

/** Plans are values: every transition works on a copy. */
export const clonePlan = (plan: Plan): Plan => structuredClone(plan);

/**
 * A copy for a change of the plan's own fields (its status, decision, timestamps): the plan, its step list and its
 * waiter lists are new, the steps themselves are shared with `plan`, so code working on the copy replaces a step
 * object instead of mutating it. A deep copy of a 50-step plan on each start and end was about 5 % of a node's CPU
 * under agents that roll their plans over; sharing the steps also lets the write see a step without waiters unchanged
 * at a glance (a step with waiters is compared by its JSON, as its waiter list is a copy).
 */
export const copyPlan = (plan: Plan): Plan => ({
  ...plan,
  steps: [...plan.steps],
  waiters: copyWaiters(plan),
});

/**
 * A copy for a change of one step, on the hot path of every status report: the plan, its step list and its waiters
 * are new, the changed step is a fresh object, and the other steps are shared with `plan` — so code working on the
 * copy replaces a step object instead of mutating it (applyResolution does). A deep copy of a 50-step plan cost
 * more than the rest of the call's core work.
 */
export const copyForStepChange = (plan: Plan, stepId: string): Plan => ({
  ...plan,
  steps: plan.steps.map((s) => (s.id === stepId ? { ...s } : s)),
  waiters: copyWaiters(plan),
});

/** Upstream's pattern for validation steps ("Run tier-2 checks", "Validate output", "Run verification checks"). */
const VALIDATION_STEP = /tier[\s-]*\d|validate\b|verification\b|run\s+validation\b|execute\s+validation\b/i;

export const isValidationStep = (description: string): boolean => VALIDATION_STEP.test(description);
