import type { Plan, Step } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES, fail } from '@planhub/shared';

const stepRange = (plan: Plan): string =>
  plan.steps.length === 0 ? 'the plan has no steps' : `steps are ${plan.steps.map((s) => s.id).join(', ')}`;

export const findStep = (plan: Plan, stepId: string): Step =>
  plan.steps.find((s) => s.id === stepId) ??
  fail('NOT_FOUND', `${stepId} does not exist in plan ${plan.plan_id}; ${stepRange(plan)}.`);

/** Step updates need an approved, unfinished plan (seed 000's gating). */
export const requireRunning = (plan: Plan): void => {
  if (plan.status === 'in_progress') return;
  if (plan.status === 'pending')
    fail(
      'FAILED_PRECONDITION',
      `Plan not started. Call startPlan first to request approval for plan ${plan.plan_id} ("${plan.title}").`,
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
