import type { NewEvent, PlanModificationRequest, Plan, Step } from '@planhub/shared';
import type { Decider } from '../plans/plan-lifecycle.ts';
import { clonePlan } from '../plans/plan-factory.ts';
import { planEvent } from '../plans/plan-events.ts';
import { findPlanModeStep, pendingModificationOf, pendingModificationStep } from './mode.ts';
import { stateRefusal } from './state-refusal.ts';

/**
 * Decided modifications kept on the plan (`details.modifications`), newest last. Every plan_modify and every decision
 * reads and writes the whole plan, so an unbounded history made each later call slower (500 requests: ~600 KB per
 * read). 50 covers any honest plan's life (a step is rarely changed more than once or twice) and bounds what a
 * runaway loop adds; each decision is also told in full by its plan_modified event.
 */
export const MODIFICATION_HISTORY_KEPT = 50;

export interface ModificationRequest {
  step_id: number;
  reason: string;
  new_description: string;
  new_files?: string[] | undefined;
  new_verification?: string | undefined;
}

const payloadOf = (m: PlanModificationRequest) => ({
  step_id: m.step_id,
  reason: m.reason,
  new_description: m.new_description,
  new_files: m.new_files ?? null,
  new_verification: m.new_verification ?? null,
  requested_by: m.requested_by,
});

/**
 * plan_modify: the change waits on the plan as its one pending modification until a user (or the owner, per policy)
 * decides it; nothing about the step changes before then (seed 002: "Requires user approval").
 */
export const requestModification = (
  current: Plan,
  request: ModificationRequest,
  by: string,
  now: string,
): { plan: Plan; events: NewEvent[] } => {
  // A step that ended may be changed too, as upstream changes any step it finds: its status stays as it is, and the
  // text says what was done (a model that corrects the record after the fact is served).
  const step = findPlanModeStep(current, request.step_id);
  const pending = pendingModificationOf(current);
  if (pending)
    stateRefusal(
      'FAILED_PRECONDITION',
      `A modification of step ${pending.step_id} is already waiting for the user's decision. Wait for its ` +
        'plan_modified event before requesting another.',
    );
  const plan = clonePlan(current);
  const modification: PlanModificationRequest = {
    step_id: request.step_id,
    reason: request.reason,
    new_description: request.new_description,
    ...(request.new_files !== undefined ? { new_files: request.new_files } : {}),
    ...(request.new_verification !== undefined ? { new_verification: request.new_verification } : {}),
    requested_by: by,
    requested_at: now,
  };
  // The step is kept by its internal id: a repeated 002 id could name another step by the time it is decided.
  plan.details = { ...plan.details, pending_modification: modification, pending_modification_step: step.id };
  plan.updated_at = now;
  const target = plan.steps.find((s) => s.id === step.id) ?? null;
  return {
    plan,
    events: [
      planEvent(
        plan,
        'plan_modified',
        target,
        { state: 'requested', awaiting_approval: true, ...payloadOf(modification) },
        now,
        by,
      ),
    ],
  };
};

/** The decision on the pending modification: approved applies it to the step; either way it is kept in history. */
export const decideModification = (
  current: Plan,
  approved: boolean,
  decider: Decider,
  now: string,
): { plan: Plan; events: NewEvent[]; modification: PlanModificationRequest; step: Step } => {
  const pending = pendingModificationOf(current);
  if (!pending)
    return stateRefusal('FAILED_PRECONDITION', `Plan ${current.plan_id} has no modification waiting for a decision.`);
  const plan = clonePlan(current);
  const step = pendingModificationStep(plan) ?? findPlanModeStep(plan, pending.step_id);
  if (approved) {
    step.description = pending.new_description;
    step.details = {
      ...step.details,
      ...(pending.new_files !== undefined ? { files: pending.new_files } : {}),
      ...(pending.new_verification !== undefined ? { verification: pending.new_verification } : {}),
    };
  }
  const { pending_modification: _done, pending_modification_step: _step, ...details } = plan.details ?? {};
  const history = Array.isArray(details.modifications) ? (details.modifications as unknown[]) : [];
  const record = {
    ...pending,
    decision: approved ? 'approved' : 'rejected',
    decided_by: decider.by,
    decided_at: now,
    ...(decider.reason !== undefined ? { decision_reason: decider.reason } : {}),
  };
  plan.details = { ...details, modifications: [...history, record].slice(-MODIFICATION_HISTORY_KEPT) };
  plan.updated_at = now;
  return {
    plan,
    modification: pending,
    step,
    events: [
      planEvent(
        plan,
        'plan_modified',
        step,
        {
          state: approved ? 'approved' : 'rejected',
          ...payloadOf(pending),
          decided_by: decider.by,
          decision_reason: decider.reason ?? null,
        },
        now,
        decider.by,
      ),
    ],
  };
};
