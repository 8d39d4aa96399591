import type { Plan, Step } from '@planhub/shared';

const describe = (s: Step) => `${s.id}: ${s.description}`;

const ALL_DONE = 'All steps completed. Call completePlan to finalize.';

/** Where the plan stands when no particular change is being answered (addStep, a repeat, a later step). */
const whatNext = (plan: Plan): string => {
  const inProgress = plan.steps.find((s) => s.status === 'in_progress');
  const pending = plan.steps.find((s) => s.status === 'pending');
  const blocked = plan.steps.filter((s) => s.status === 'blocked');
  if (pending) return `Proceed with: ${describe(pending)}`;
  if (inProgress) return `Continue with: ${describe(inProgress)}`;
  if (blocked.length > 0)
    return (
      `Remaining steps (${blocked.map((s) => s.id).join(', ')}) are blocked on other agents and unblock by ` +
      'themselves: wait for their step_unblocked events, do not poll.'
    );
  return ALL_DONE;
};

/**
 * What the model should do next, given the plan after a change (seed 000: never recreate the plan). Each starts
 * with upstream's wording, which hosts and models were tuned on; "all steps completed" is said only when no step is
 * left open at all (upstream said it while blocked or in-progress steps remained).
 */
export const nextInstruction = (plan: Plan, changed?: Step): string => {
  const pending = plan.steps.find((s) => s.status === 'pending');
  if (changed?.status === 'in_progress')
    return (
      `Step is now in progress. Proceed immediately with: ${changed.description} (${changed.id}). ` +
      'Report its honest outcome with setStepStatus when done.'
    );
  if (changed?.status === 'failed')
    return (
      'Step failed. Decide whether to: (1) use addStep to insert a corrective/alternative step, (2) skip remaining ' +
      'steps if the goal is already met, or (3) proceed to the next pending step. Do NOT recreate the plan from ' +
      `scratch with createPlan. ${changed.id} failed; ${whatNext(plan)}`
    );
  if (changed?.status === 'completed' && pending)
    return `Step completed. Proceed immediately to next step: ${pending.description} (${pending.id}).`;
  if (changed?.status === 'completed') {
    const next = whatNext(plan);
    // Upstream answers the last completion with exactly this sentence; hosts match on how it starts.
    return next === ALL_DONE ? ALL_DONE : `Step completed. ${next}`;
  }
  if (changed?.status === 'skipped') return `Step skipped. ${whatNext(plan)}`;
  return whatNext(plan);
};

/** The short message of a step answer (upstream has none for setStepStatus; its fields are what hosts read). */
export const stepMessage = (step: Step): string => `Step ${step.id} is ${step.status}.`;

const FAILURE_WORDS = /\b(could not|couldn't|unable to|failed to|cannot|can't|did not succeed|was not able to)\b/i;

/** Seed 000's honest-reporting rule, made visible: a "completed" that reads like a failure earns a warning. */
export const honestyWarning = (status: string, result: string | undefined): string | undefined =>
  status === 'completed' && result !== undefined && FAILURE_WORDS.test(result)
    ? `The result reads like a failure ("${FAILURE_WORDS.exec(result)?.[0] ?? ''}"). A step whose goal was not fully ` +
      'achieved must be reported as "failed", not "completed". The step stays completed; add a corrective step with ' +
      'addStep if work remains, and report failures as failed from here on.'
    : undefined;
