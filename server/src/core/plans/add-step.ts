import type { NewEvent, Plan, Step } from '@planhub/shared';
import { newStep } from './plan-factory.ts';
import { planEvent } from './plan-events.ts';
import { findStep, requireRunning } from './plan-guards.ts';

export interface AddStepOutcome {
  plan: Plan;
  step: Step;
  events: NewEvent[];
}

type StepInput = { description: string; extra?: Partial<Step> | undefined };

/**
 * addStep's append to a plan of `count` steps. `current.steps` may hold none of them (a plan read without its steps,
 * tools/plan-step-read.ts): the new step is numbered from `count`, and `plan.steps` is `current.steps` and the new
 * step.
 */
export const appendStep = (current: Plan, count: number, input: StepInput, now: string): AddStepOutcome => {
  requireRunning(current);
  const step = newStep(current.next_step_number, count + 1, input.description, input.extra ?? {});
  const plan: Plan = {
    ...current,
    steps: [...current.steps, step],
    waiters: { ...current.waiters },
    next_step_number: current.next_step_number + 1,
    updated_at: now,
  };
  return {
    plan,
    step,
    events: [planEvent(plan, 'step_added', step, { after_step_id: null, status: step.status }, now)],
  };
};

/** addStep: appends, or inserts after `after_step_id` and re-sequences the later steps. Ids are never reused. */
export const addStep = (
  current: Plan,
  input: StepInput & { after_step_id?: string | undefined },
  now: string,
): AddStepOutcome => {
  if (input.after_step_id === undefined) return appendStep(current, current.steps.length, input, now);
  requireRunning(current);
  // Copy on write: the steps whose sequence stays are shared with `current` (see copyForStepChange).
  const plan: Plan = { ...current, steps: [...current.steps], waiters: { ...current.waiters } };
  const index =
    input.after_step_id === undefined ? plan.steps.length : plan.steps.indexOf(findStep(plan, input.after_step_id)) + 1;
  const step = newStep(plan.next_step_number, index + 1, input.description, input.extra ?? {});
  plan.next_step_number += 1;
  plan.steps.splice(index, 0, step);
  plan.steps = plan.steps.map((s, i) => (s.sequence === i + 1 ? s : { ...s, sequence: i + 1 }));
  plan.updated_at = now;
  return {
    plan,
    step,
    events: [
      planEvent(plan, 'step_added', step, { after_step_id: input.after_step_id ?? null, status: step.status }, now),
    ],
  };
};
