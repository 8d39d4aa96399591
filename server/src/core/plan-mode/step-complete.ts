import type { Plan, Step } from '@planhub/shared';
import { changeStepStatus, type StepChangeOutcome } from '../plans/step-status.ts';
import { findPlanModeStep, numericStepId, pendingModificationStep } from './mode.ts';
import { stateRefusal } from './state-refusal.ts';

/** "step 2" for a step of this plan, "agent:step" for another agent's. */
const describeDependency = (plan: Plan, ref: { agent_id: string; plan_id?: string | undefined; step_id: string }) => {
  if (ref.agent_id === plan.agent_id && ref.plan_id === plan.plan_id) {
    const step = plan.steps.find((s) => s.id === ref.step_id);
    return `step ${step ? numericStepId(step) : ref.step_id} (${step?.status ?? 'unknown'})`;
  }
  return `${ref.agent_id}:${ref.step_id}`;
};

/** Why a step cannot be completed yet, in words a model can act on; undefined when it can. */
const refusal = (plan: Plan, step: Step, id: number): string | undefined => {
  if (step.status === 'completed') return `Step ${id} already completed.`;
  if (step.status === 'failed' || step.status === 'skipped')
    return `Step ${id} already ended as ${step.status}; it cannot be completed now.`;
  if (step.status === 'blocked') {
    const open = (step.blocked_by ?? []).map((d) => describeDependency(plan, d));
    return (
      `Step ${id} depends on ${open.join(', ')}, not complete yet. Complete ${open.length > 1 ? 'those' : 'that'} ` +
      `first; step ${id} becomes ready by itself.`
    );
  }
  if (pendingModificationStep(plan)?.id === step.id)
    return (
      `Step ${id} has a modification waiting for the user's decision (plan_modify). Work on another step, and wait ` +
      'for the plan_modified event before completing this one.'
    );
  return undefined;
};

/**
 * plan_step_complete on an executing plan: duplicate, unknown, unready or under-modification steps are refused. An id
 * several steps carry completes the first of them not ended (findPlanModeStep), so each is completed in turn.
 */
export const completePlanModeStep = (
  plan: Plan,
  id: number,
  verificationResult: string,
  now: string,
): StepChangeOutcome => {
  const step = findPlanModeStep(plan, id);
  const reason = refusal(plan, step, id);
  if (reason !== undefined) stateRefusal('FAILED_PRECONDITION', reason);
  const outcome = changeStepStatus(plan, { step_id: step.id, status: 'completed', result: verificationResult }, now);
  const done = outcome.plan.steps.find((s) => s.id === step.id)!;
  done.details = { ...done.details, verification_result: verificationResult };
  return outcome;
};

export const openSteps = (plan: Plan): Step[] =>
  plan.steps.filter((s) => s.status === 'pending' || s.status === 'in_progress' || s.status === 'blocked');
