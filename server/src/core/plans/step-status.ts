import type { NewEvent, Plan, Step } from '@planhub/shared';
import { ENDED_STEP_STATUSES, PlanHubError, fail } from '@planhub/shared';
import { copyForStepChange } from './plan-factory.ts';
import { planEvent } from './plan-events.ts';
import { findStep, requireRunning } from './plan-guards.ts';
import { honestyWarning, instructionFor } from './instruction.ts';
import { type StepTally, tallyOf, withChange } from './step-tally.ts';

export type SettableStatus = 'pending' | 'blocked' | 'in_progress' | 'completed' | 'failed' | 'skipped';

/** What a step may be set to by hand; pending and blocked are accepted and change nothing, as upstream. */
type ChangingStatus = Exclude<SettableStatus, 'pending' | 'blocked'>;

export interface StepChange {
  step_id: string;
  status: SettableStatus;
  result?: string;
  error?: string;
  output?: Record<string, unknown>;
  provides?: string;
  notes?: string;
}

export interface StepChangeOutcome {
  plan: Plan;
  step: Step;
  events: NewEvent[];
  instruction: string;
  warning?: string;
  /** True when the step reached an end state now (dependents may resolve). */
  ended: boolean;
  /** The plan's steps counted after the change (what the answer's progress and total say). */
  tally: StepTally;
}

const EVENT_OF = {
  in_progress: 'step_started',
  completed: 'step_completed',
  failed: 'step_failed',
  skipped: 'step_skipped',
} as const;

/**
 * Ended steps may be reported again, as upstream allows: a failed step retried to completed, a completed one reopened.
 * A blocked step cannot be completed by hand (its dependencies would be skipped).
 */
const LEGAL_FROM: Record<Step['status'], readonly ChangingStatus[]> = {
  pending: ['in_progress', 'completed', 'failed', 'skipped'],
  in_progress: ['completed', 'failed', 'skipped'],
  blocked: ['failed', 'skipped'],
  completed: ['in_progress', 'failed', 'skipped'],
  failed: ['in_progress', 'completed', 'skipped'],
  skipped: ['in_progress', 'completed', 'failed'],
};

/** Explains a refused transition in words a model can act on. */
const illegal = (step: Step, to: ChangingStatus): never => {
  if (step.status === 'blocked')
    fail(
      'FAILED_PRECONDITION',
      `${step.id} is blocked waiting on ${(step.blocked_by ?? []).map((d) => `${d.agent_id}:${d.step_id}`).join(', ')}; ` +
        'it unblocks by itself when they end, so wait for its step_unblocked event. You may mark it failed or skipped to give up on it.',
    );
  if (ENDED_STEP_STATUSES.has(step.status))
    fail(
      'FAILED_PRECONDITION',
      `${step.id} already ended as ${step.status}. Report it again as in_progress, completed, failed or skipped, or add a corrective step with addStep.`,
    );
  return fail(
    'FAILED_PRECONDITION',
    `${step.id} is ${step.status}; it can move to ${LEGAL_FROM[step.status].join(', ') || 'nothing'}, not ${to}.`,
  );
};

/**
 * Upstream's validation gate: a validation step is completed only with evidence (outputs received from the agents
 * that validated); completeStepWithOutput brings its own evidence and passes.
 */
const validationGate = (step: Step, status: SettableStatus, output?: unknown): void => {
  if (status !== 'completed' || step.validation_required !== true || output !== undefined) return;
  if (Object.keys(step.received_outputs ?? {}).length > 0) return;
  throw new PlanHubError(
    'FAILED_PRECONDITION',
    // Upstream's text to the letter (its line breaks included), then what PlanHub also takes as evidence.
    'This is a validation step (validation_required=true). It cannot be marked completed without subagent evidence.\n\n' +
      'To complete this step:\n' +
      '1. Spawn a validator subagent\n' +
      "2. Use addDependentStep to link this step to the subagent's output\n" +
      '3. The subagent calls completeStepWithOutput with its results\n' +
      '4. This step auto-unblocks and can then be completed\n\n' +
      "If validation is genuinely not needed, use setStepStatus(status='skipped') instead. Completing it with " +
      'completeStepWithOutput, carrying the validation result, also counts as evidence.',
    { native: { step_id: step.id, validation_required: true, has_received_outputs: false } },
  );
};

/**
 * A status upstream accepts without changing anything (it has no branch for them): the answer says so, since a model
 * that sent it expected a change.
 */
const noChangeWarning = (step: Step, status: 'pending' | 'blocked'): string | undefined => {
  if (step.status === status) return undefined;
  const still = `Nothing changed: ${step.id} is still ${step.status}.`;
  return status === 'blocked'
    ? `${still} A step is blocked only while it waits on other agents' steps: attach them with ` +
        `addDependentStep(step_id="${step.id}", depends_on=[…]).`
    : `${still} A step cannot be set back to pending; report it in_progress, completed, failed or skipped.`;
};

/** Whether a report of the status the step already has brings anything new (upstream applies it again). */
const bringsNews = (step: Step, change: StepChange): boolean =>
  (change.result !== undefined && change.result !== step.result) ||
  (change.error !== undefined && change.error !== step.error) ||
  (change.notes !== undefined && change.notes !== step.notes) ||
  (change.provides !== undefined && change.provides !== step.provides) ||
  (change.output !== undefined && JSON.stringify(change.output) !== JSON.stringify(step.output));

/**
 * Seed 000's setStepStatus (and completeStepWithOutput, which adds output and provides). `tally` counts the plan's
 * steps as read, for a plan read without all of them (only the changed step need be in `current.steps` then).
 */
export const changeStepStatus = (
  current: Plan,
  change: StepChange,
  now: string,
  tally: StepTally = tallyOf(current.steps),
): StepChangeOutcome => {
  requireRunning(current);
  const plan = copyForStepChange(current, change.step_id);
  const step = findStep(plan, change.step_id);
  const unchanged = (warning?: string): StepChangeOutcome => ({
    plan: current,
    step: findStep(current, change.step_id),
    events: [],
    instruction: instructionFor(tally),
    ...(warning ? { warning } : {}),
    ended: false,
    tally,
  });
  const before = findStep(current, change.step_id);
  if (change.status === 'pending' || change.status === 'blocked')
    return unchanged(noChangeWarning(step, change.status));
  const status = change.status;
  validationGate(step, status, change.output);
  // A repeat that brings a new result, error or output is applied and announced again, as upstream does; the
  // dependents that resolved on the first report keep what they received. A bare repeat (a retry) changes nothing.
  const repeat = step.status === status;
  if (!repeat && !LEGAL_FROM[step.status].includes(status)) illegal(step, status);
  if (repeat && !bringsNews(step, change)) return unchanged();

  step.status = status;
  if (change.result !== undefined) step.result = change.result;
  if (change.error !== undefined) step.error = change.error;
  if (change.notes !== undefined) step.notes = change.notes;
  if (change.output !== undefined) step.output = change.output;
  if (change.provides !== undefined) step.provides = change.provides;
  // A repeat keeps its times: the step started or ended at its first report.
  if (!repeat && status === 'in_progress') {
    step.started_at = now;
    delete step.completed_at;
  } else if (!repeat) step.completed_at = now;
  plan.updated_at = now;

  const payload: Record<string, unknown> = { result: step.result ?? null, error: step.error ?? null };
  if (change.output !== undefined) payload.output = change.output;
  // completeStepWithOutput's step_completed carries upstream's {output, result, provides}, provides null when unset.
  if (step.provides !== undefined || change.output !== undefined) payload.provides = step.provides ?? null;
  const warning = honestyWarning(status, change.result);
  const after = withChange(tally, before, step);
  return {
    plan,
    step,
    events: [planEvent(plan, EVENT_OF[status], step, payload, now)],
    instruction: instructionFor(after, step),
    ...(warning ? { warning } : {}),
    ended: !repeat && status !== 'in_progress',
    tally: after,
  };
};
