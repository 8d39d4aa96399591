import type { NewEvent, Plan, Step } from '@planhub/shared';
import { ENDED_STEP_STATUSES, PlanHubError, fail } from '@planhub/shared';
import { copyForStepChange } from './plan-factory.ts';
import { planEvent } from './plan-events.ts';
import { findStep, requireRunning } from './plan-guards.ts';
import { honestyWarning, nextInstruction } from './instruction.ts';

export type SettableStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'skipped';

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
}

const EVENT_OF = {
  in_progress: 'step_started',
  completed: 'step_completed',
  failed: 'step_failed',
  skipped: 'step_skipped',
} as const;

/**
 * Ended steps may be reported again, as upstream allows: a failed step retried to completed, a completed one reopened.
 * A blocked step cannot be completed by hand (its dependencies would be skipped); `pending` changes nothing (upstream
 * accepts it as a no-op).
 */
const LEGAL_FROM: Record<Step['status'], readonly SettableStatus[]> = {
  pending: ['in_progress', 'completed', 'failed', 'skipped'],
  in_progress: ['completed', 'failed', 'skipped'],
  blocked: ['failed', 'skipped'],
  completed: ['in_progress', 'failed', 'skipped'],
  failed: ['in_progress', 'completed', 'skipped'],
  skipped: ['in_progress', 'completed', 'failed'],
};

/** Explains a refused transition in words a model can act on. */
const illegal = (step: Step, to: SettableStatus): never => {
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
    'This is a validation step (validation_required=true). It cannot be marked completed without subagent evidence. ' +
      'Run the validation through subagents and wait for their outputs (they arrive in received_outputs), or complete ' +
      'it with completeStepWithOutput carrying the validation result. If validation is genuinely not needed, use ' +
      "setStepStatus(status='skipped') instead.",
    { step_id: step.id, validation_required: true, has_received_outputs: false },
  );
};

/** Seed 000's setStepStatus (and completeStepWithOutput, which adds output and provides). */
export const changeStepStatus = (current: Plan, change: StepChange, now: string): StepChangeOutcome => {
  requireRunning(current);
  const plan = copyForStepChange(current, change.step_id);
  const step = findStep(plan, change.step_id);
  if (change.status === 'pending')
    return {
      plan: current,
      step: findStep(current, change.step_id),
      events: [],
      instruction: nextInstruction(current),
      ended: false,
    };
  const status = change.status;
  validationGate(step, status, change.output);
  const repeat = step.status === status;
  if (!repeat && !LEGAL_FROM[step.status].includes(status)) illegal(step, status);
  if (repeat && change.output === undefined)
    return {
      plan: current,
      step: findStep(current, change.step_id),
      events: [],
      instruction: nextInstruction(current),
      ended: false,
    };
  if (repeat) illegal(step, status);

  step.status = status;
  if (change.result !== undefined) step.result = change.result;
  if (change.error !== undefined) step.error = change.error;
  if (change.notes !== undefined) step.notes = change.notes;
  if (change.output !== undefined) step.output = change.output;
  if (change.provides !== undefined) step.provides = change.provides;
  if (status === 'in_progress') {
    step.started_at = now;
    delete step.completed_at;
  } else step.completed_at = now;
  plan.updated_at = now;

  const payload: Record<string, unknown> = { result: step.result ?? null, error: step.error ?? null };
  if (change.output !== undefined) payload.output = change.output;
  if (step.provides !== undefined) payload.provides = step.provides;
  const warning = honestyWarning(status, change.result);
  return {
    plan,
    step,
    events: [planEvent(plan, EVENT_OF[status], step, payload, now)],
    instruction: nextInstruction(plan, step),
    ...(warning ? { warning } : {}),
    ended: status !== 'in_progress',
  };
};
