import type { Plan, Step } from '@planhub/shared';
import { ENDED_STEP_STATUSES } from '@planhub/shared';
import { nextPlanModeStep, numericStepId } from '../../core/plan-mode/mode.ts';

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
