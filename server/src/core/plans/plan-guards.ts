import type { Plan, Step } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES, fail } from '@planhub/shared';

const stepRange = (plan: Plan): string =>
  plan.steps.length === 0 ? 'the plan has no steps' : `steps are ${plan.steps.map((s) => s.id).join(', ')}`;

export const findStep = (plan: Plan, stepId: string): Step =>
  plan.steps.find((s) => s.id === stepId) ??
  fail('NOT_FOUND', `Step not found: ${stepId}. Plan ${plan.plan_id} has no such step; ${stepRange(plan)}.`);

/** findStep for addDependentStep, whose refusal upstream words differently. */
export const findStepToWait = (plan: Plan, stepId: string): Step =>
  plan.steps.find((s) => s.id === stepId) ??
  fail('NOT_FOUND', `Step '${stepId}' not found in plan. In plan ${plan.plan_id}, ${stepRange(plan)}.`);

/** Step updates need an approved, unfinished plan (seed 000's gating). */
export const requireRunning = (plan: Plan): void => {
  if (plan.status === 'in_progress') return;
  if (plan.status === 'pending')
    fail(
      'FAILED_PRECONDITION',
      `Plan not started. Call startPlan first to confirm the plan. (Plan ${plan.plan_id}, "${plan.title}", is pending.)`,
    );
  if (plan.status === 'awaiting_approval')
    fail(
      'FAILED_PRECONDITION',
      `Plan not started: plan ${plan.plan_id} is awaiting the user's approval. Wait for the decision (plan_approved or plan_rejected event).`,
    );
  if (FINISHED_PLAN_STATUSES.has(plan.status))
    fail(
      'FAILED_PRECONDITION',
      `Plan ${plan.plan_id} is already ${plan.status}; it cannot change. Create a new plan with createPlan for new work.`,
    );
};

/**
 * createPlan while a started plan is unfinished: upstream's refusal (models were tuned on it), then which plan it is.
 */
export const activePlanExists = (plan: Plan): never => {
  const count = (status: string) => plan.steps.filter((s) => s.status === status).length;
  return fail(
    'FAILED_PRECONDITION',
    `An active plan already exists: '${plan.title}' (${count('pending')} pending, ${count('in_progress')} in progress). ` +
      'Do NOT recreate the plan from scratch. Instead:\n' +
      '- Use addStep(description, after_step_id?) to insert new steps\n' +
      "- Use setStepStatus(step_id, status='skipped') to skip steps that are no longer needed\n" +
      "- Use completePlan(status='failed') first if you truly need to abandon the plan\n" +
      `(The active plan is ${plan.plan_id}, ${plan.status}.)`,
  );
};
