import type { PlanMode, PlanModificationRequest, Plan, Step } from '@planhub/shared';
import { ENDED_STEP_STATUSES, PLAN_MODE_BLOCKED_TOOLS } from '@planhub/shared';
import { stateRefusal } from './state-refusal.ts';

/**
 * The per-agent document of seed 002 (docKeys.planMode). Only what no plan can tell is stored: the goal while the
 * agent explores, and which plan plan_exit made. From plan_exit on, the mode is derived from that plan's status, so
 * a decision or an ending made through any dialect (startPlan approvals, completePlan, …) moves the mode with it.
 */
export interface PlanModeDoc {
  goal: string;
  scope?: string;
  entered_at: string;
  plan_id?: string;
}

export const deriveMode = (doc: PlanModeDoc | undefined, plan: Plan | undefined): PlanMode => {
  if (!doc) return 'normal';
  if (doc.plan_id === undefined) return 'plan';
  if (plan?.status === 'awaiting_approval' || plan?.status === 'pending') return 'awaiting_approval';
  if (plan?.status === 'in_progress') return 'executing';
  return 'normal';
};

/**
 * Writes are blocked only while the agent explores: once plan_exit has presented the plan, upstream lets the host
 * write again (the user may ask for changes to files while deciding), and hosts built on it expect that.
 */
export const blockedToolsIn = (mode: PlanMode): string[] => (mode === 'plan' ? [...PLAN_MODE_BLOCKED_TOOLS] : []);

const stepNumberOf = (id: string): number | undefined => {
  const match = /^step_(\d+)$/.exec(id);
  return match ? Number(match[1]) : undefined;
};

/** A step's 002 id: the number the plan gave it, or N of `step_N` for steps added through another dialect. */
export const numericStepId = (step: Step): number | undefined =>
  typeof step.details?.id === 'number' ? step.details.id : stepNumberOf(step.id);

export const listStepIds = (plan: Plan): string =>
  plan.steps.length === 0 ? 'it has no steps' : `its steps are ${plan.steps.map(numericStepId).join(', ')}`;

/**
 * The step a 002 id names. Upstream never checks that ids are unique, so several steps may carry one id; it then
 * names the first of them (in plan order) that has not ended, so plan_step_complete completes them one after another
 * and plan_modify changes the one still to do, and once all have ended the first of them (whose refusal says it
 * already ended). Ids given by the plan win over the `step_N` fallback, so a step added by addStep never shadows one.
 */
export const findPlanModeStep = (plan: Plan, id: number): Step => {
  const given = plan.steps.filter((s) => s.details?.id === id);
  const carrying =
    given.length > 0 ? given : plan.steps.filter((s) => typeof s.details?.id !== 'number' && stepNumberOf(s.id) === id);
  return (
    carrying.find((s) => !ENDED_STEP_STATUSES.has(s.status)) ??
    carrying[0] ??
    stateRefusal('NOT_FOUND', `Step ${id} not found in plan ${plan.plan_id}; ${listStepIds(plan)}.`)
  );
};

/** A step in the shape of seed 002's plan object: its number, description, files and verification command. */
export const planModeStepView = (step: Step) => {
  const details = (step.details ?? {}) as { files?: string[]; verification?: string };
  return {
    id: numericStepId(step) ?? null,
    description: step.description,
    files: details.files ?? [],
    verification: details.verification ?? null,
    status: step.status,
  };
};

/**
 * The plan_modify request waiting for a decision. Only an executing plan has one: a plan that ended through another
 * dialect (completePlan, update_plan) with a request still open can no longer be decided, so nothing may offer it.
 */
export const pendingModificationOf = (plan: Plan): PlanModificationRequest | undefined =>
  plan.status === 'in_progress'
    ? (plan.details?.pending_modification as PlanModificationRequest | undefined)
    : undefined;

/**
 * The step the pending modification changes. plan_modify stores its internal id beside the request, because a
 * repeated 002 id names a step only at the moment it is used (the first of its steps not ended); plans stored before
 * that was kept fall back to the id.
 */
export const pendingModificationStep = (plan: Plan): Step | undefined => {
  const pending = pendingModificationOf(plan);
  if (!pending) return undefined;
  const key = plan.details?.pending_modification_step;
  return typeof key === 'string' ? plan.steps.find((s) => s.id === key) : findPlanModeStep(plan, pending.step_id);
};

/** The first step still to do: in progress first, else the first pending one. */
export const nextPlanModeStep = (plan: Plan): Step | undefined =>
  plan.steps.find((s) => s.status === 'in_progress') ?? plan.steps.find((s) => s.status === 'pending');

/**
 * The step that ended last. Times are ISO text to the millisecond, so two steps ended in one millisecond tie; the
 * later in plan order wins, which is the one plan_step_complete reached last when steps are done in order.
 */
const lastEnded = (plan: Plan): Step | undefined =>
  plan.steps
    .filter((s) => ENDED_STEP_STATUSES.has(s.status) && s.completed_at !== undefined)
    .reduce<Step | undefined>((last, s) => (last && last.completed_at! > s.completed_at! ? last : s), undefined);

/**
 * Upstream's `current_step` (Triggerfish's stepComplete sets `currentStep = nextStep?.id ?? stepId`): the step to work
 * on next, a blocked one too (upstream's next is the first step not completed, in plan order), and once every step
 * has ended the one completed last, so a model reading plan_status after the last step sees where it stopped, not null.
 */
export const currentPlanModeStep = (plan: Plan): number | null => {
  const step = nextPlanModeStep(plan) ?? plan.steps.find((s) => s.status === 'blocked') ?? lastEnded(plan);
  return step ? (numericStepId(step) ?? null) : null;
};

/** Seed 002's progress, naming the next step by its 002 id. */
export const planModeProgress = (plan: Plan) => {
  const next = nextPlanModeStep(plan);
  return {
    total_steps: plan.steps.length,
    completed_steps: plan.steps.filter((s) => s.status === 'completed').length,
    next_step: next ? (numericStepId(next) ?? null) : null,
  };
};
