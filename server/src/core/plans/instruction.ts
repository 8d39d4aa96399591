import type { Plan, Step } from '@planhub/shared';
import { type NamedStep, type StepTally, tallyOf } from './step-tally.ts';

const describe = (s: NamedStep) => `${s.id}: ${s.description}`;

const ALL_DONE = 'All steps completed. Call completePlan to finalize.';

/** The blocked steps by id, the first ones named and the rest counted. */
const blockedNames = (tally: StepTally): string => {
  const ids = tally.first.blocked.map((s) => s.id);
  const more = tally.counts.blocked - ids.length;
  return more > 0 ? `${ids.join(', ')} and ${more} more` : ids.join(', ');
};

/** Where the plan stands when no particular change is being answered (addStep, a repeat, a later step). */
const whatNext = (tally: StepTally): string => {
  const [pending] = tally.first.pending;
  const [inProgress] = tally.first.in_progress;
  if (pending) return `Proceed with: ${describe(pending)}`;
  if (inProgress) return `Continue with: ${describe(inProgress)}`;
  if (tally.counts.blocked > 0)
    return (
      `Remaining steps (${blockedNames(tally)}) are blocked on other agents and unblock by ` +
      'themselves: wait for their step_unblocked events, do not poll.'
    );
  return ALL_DONE;
};

/**
 * What the model should do next, given the plan's steps after a change (seed 000: never recreate the plan). Each
 * starts with upstream's wording, which hosts and models were tuned on; "all steps completed" is said only when no
 * step is left open at all (upstream said it while blocked or in-progress steps remained).
 */
export const instructionFor = (tally: StepTally, changed?: Step): string => {
  const [pending] = tally.first.pending;
  if (changed?.status === 'in_progress')
    return (
      `Step is now in progress. Proceed immediately with: ${changed.description} (${changed.id}). ` +
      'Report its honest outcome with setStepStatus when done.'
    );
  if (changed?.status === 'failed')
    return (
      'Step failed. Decide whether to: (1) use addStep to insert a corrective/alternative step, (2) skip remaining ' +
      'steps if the goal is already met, or (3) proceed to the next pending step. Do NOT recreate the plan from ' +
      `scratch with createPlan. ${changed.id} failed; ${whatNext(tally)}`
    );
  if (changed?.status === 'completed' && pending)
    return `Step completed. Proceed immediately to next step: ${pending.description} (${pending.id}).`;
  if (changed?.status === 'completed') {
    const next = whatNext(tally);
    // Upstream answers the last completion with exactly this sentence; hosts match on how it starts.
    return next === ALL_DONE ? ALL_DONE : `Step completed. ${next}`;
  }
  if (changed?.status === 'skipped') return `Step skipped. ${whatNext(tally)}`;
  return whatNext(tally);
};

/** instructionFor a plan whose steps are all at hand. */
export const nextInstruction = (plan: Plan, changed?: Step): string => instructionFor(tallyOf(plan.steps), changed);

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
