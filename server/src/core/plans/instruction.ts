import type { Plan, Step } from '@planhub/shared';

const describe = (s: Step) => `${s.id}: ${s.description}`;

/** What the model should do next, given the plan after a change (seed 000: never recreate the plan). */
export const nextInstruction = (plan: Plan, changed?: Step): string => {
  const inProgress = plan.steps.find((s) => s.status === 'in_progress');
  const pending = plan.steps.find((s) => s.status === 'pending');
  const blocked = plan.steps.filter((s) => s.status === 'blocked');
  const next = pending
    ? `Proceed with: ${describe(pending)}`
    : inProgress
      ? `Continue with: ${describe(inProgress)}`
      : blocked.length > 0
        ? `Remaining steps (${blocked.map((s) => s.id).join(', ')}) are blocked on other agents and unblock by themselves: wait for their step_unblocked events, do not poll.`
        : 'All steps done. Call completePlan.';
  if (changed?.status === 'failed')
    return (
      `${changed.id} failed. Decide how to go on: add a corrective step with addStep, mark steps that no longer make ` +
      `sense as skipped, or end with completePlan(status="failed"). Never recreate the plan. ${next}`
    );
  if (changed?.status === 'in_progress' && inProgress?.id === changed.id)
    return `Work on ${describe(changed)}. Report its honest outcome with setStepStatus when done.`;
  return next;
};

const FAILURE_WORDS = /\b(could not|couldn't|unable to|failed to|cannot|can't|did not succeed|was not able to)\b/i;

/** Seed 000's honest-reporting rule, made visible: a "completed" that reads like a failure earns a warning. */
export const honestyWarning = (status: string, result: string | undefined): string | undefined =>
  status === 'completed' && result !== undefined && FAILURE_WORDS.test(result)
    ? `The result reads like a failure ("${FAILURE_WORDS.exec(result)?.[0] ?? ''}"). A step whose goal was not fully ` +
      'achieved must be reported as "failed", not "completed". The step stays completed; add a corrective step with ' +
      'addStep if work remains, and report failures as failed from here on.'
    : undefined;
