import type { DependencyRef, NewEvent, Plan, Step } from '@planhub/shared';
import { planEvent } from '../plans/plan-events.ts';
import { deliveredValue, dependencyKey, unblockedPayload } from './resolve.ts';

/** What one ended step delivers to one waiting step of another plan, decided here and applied by the store. */
export interface FanInDecision {
  /** Entries for the waiting step's received outputs (key → value): by `<agent_id>:<step_id>` and by `provides`. */
  record: Record<string, unknown>;
  /** Announced only if this delivery turns out to be the last outstanding one (the store's fan-in decides). */
  whenLast: NewEvent[];
}

export const isSamePlan = (plan: Pick<Plan, 'plan_id'>, ref: DependencyRef): boolean => ref.plan_id === plan.plan_id;

/**
 * The delivery of `ended` to `stepId` of the waiting plan, or undefined when that step no longer waits (it ended, or
 * its owner gave up on it). Pure: the caller turns it into the store's fan-in, whose outstanding set (every open
 * dependency of the step) decides whether this delivery is the last. `outputs` stands for every received output
 * (`keys`: their keys, `values`: key → value), which only the store knows once all deliveries are in.
 */
export const decideFanIn = (
  waiting: Plan,
  stepId: string,
  ended: { agent_id: string; plan_id: string; step: Step },
  now: string,
  outputs: { keys: unknown; values: unknown },
): FanInDecision | undefined => {
  const step = waiting.steps.find((s) => s.id === stepId);
  if (!step || step.status !== 'blocked') return undefined;
  const ref: DependencyRef = { agent_id: ended.agent_id, plan_id: ended.plan_id, step_id: ended.step.id };
  const value = deliveredValue(ended.step);
  const record: Record<string, unknown> = { [dependencyKey(ref)]: value };
  if (ended.step.provides !== undefined) record[ended.step.provides] = value;
  const whenLast = [
    planEvent(waiting, 'step_unblocked', step, unblockedPayload(outputs.keys, outputs.values, ref), now),
  ];
  return { record, whenLast };
};

/**
 * Kept in the outstanding set of a step its finished plan left blocked, so the set never empties: a delivery that
 * read the waiter list before the plan's end and commits after it removes its own member, and the step stays as the
 * end left it (neither announced nor shown as unblocked).
 */
export const PLAN_ENDED = 'plan-ended';

/**
 * A blocked step that waits on other plans, as its live dependency state shows it: the dependencies still in its
 * outstanding set (all of them, its own plan's included) and what it received meanwhile. Once nothing is outstanding it is ready, exactly when the fan-in
 * announced it; its owner's next write of the plan stores that.
 */
export const liveStep = (
  step: Step,
  outstanding: ReadonlySet<string>,
  received: Readonly<Record<string, unknown>>,
  nodeOf: (ref: DependencyRef) => string,
): Step => {
  const blockedBy = (step.blocked_by ?? []).filter((d) => outstanding.has(nodeOf(d)));
  return {
    ...step,
    blocked_by: blockedBy,
    received_outputs: { ...step.received_outputs, ...received },
    // A step its finished plan left blocked stays blocked, as the end's event says, whatever arrives later; what it
    // had received, and what it still waited on, show as they are.
    status: blockedBy.length > 0 || outstanding.has(PLAN_ENDED) ? 'blocked' : 'pending',
  };
};
