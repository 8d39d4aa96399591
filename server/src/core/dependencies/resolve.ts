import type { DependencyRef, NewEvent, Plan, Step } from '@planhub/shared';
import { byBytes } from '../byte-order.ts';
import { planEvent } from '../plans/plan-events.ts';

export const dependencyKey = (ref: Pick<DependencyRef, 'agent_id' | 'step_id'>): string =>
  `${ref.agent_id}:${ref.step_id}`;

const sameRef = (a: DependencyRef, b: DependencyRef): boolean =>
  a.agent_id === b.agent_id &&
  a.step_id === b.step_id &&
  (a.plan_id === undefined || b.plan_id === undefined || a.plan_id === b.plan_id);

/** What a dependent receives from an ended step: its output, or its outcome when it had none (docs/dialects.md, 000). */
export const deliveredValue = (step: Step): unknown =>
  step.status === 'completed' && step.output !== undefined
    ? step.output
    : { status: step.status, result: step.result ?? null, error: step.error ?? null };

/** Which ended step a `step_unblocked` names: the dependency whose end made the step ready. */
export const unblockedBy = (ref: DependencyRef) => ({
  agent_id: ref.agent_id,
  plan_id: ref.plan_id ?? null,
  step_id: ref.step_id,
});

/**
 * The `step_unblocked` payload: the keys of every received output, the outputs themselves (so the waiting agent
 * needs no second read) and the dependency that ended last. `unblocked_by_agent` is kept for readers of the earlier
 * payload (and for exact echo checks: agent ids may contain ":").
 */
export const unblockedPayload = (receivedKeys: unknown, outputs: unknown, by: DependencyRef) => ({
  received_outputs: receivedKeys,
  outputs,
  unblocked_by: unblockedBy(by),
  unblocked_by_agent: by.agent_id,
});

/** `step_unblocked` for a step whose received outputs are all known here. */
export const unblockedEvent = (plan: Plan, step: Step, by: DependencyRef, now: string): NewEvent => {
  const received = step.received_outputs ?? {};
  return planEvent(plan, 'step_unblocked', step, unblockedPayload(Object.keys(received), received, by), now);
};

/**
 * Applies one ended dependency to a waiting step of `plan` (its step list is changed in place: the caller works on a
 * copy).
 * Idempotent: a dependency already resolved changes nothing, so a retried or duplicated delivery is harmless.
 * Returns the events: `step_unblocked` exactly when the last open dependency resolves.
 */
export const applyResolution = (
  plan: Plan,
  stepId: string,
  ended: { agent_id: string; plan_id: string; step: Step },
  now: string,
): NewEvent[] => {
  const index = plan.steps.findIndex((s) => s.id === stepId);
  const found = plan.steps[index];
  const ref: DependencyRef = { agent_id: ended.agent_id, plan_id: ended.plan_id, step_id: ended.step.id };
  if (!found || !(found.blocked_by ?? []).some((d) => sameRef(d, ref))) return [];
  // Step objects may be shared with the plan this copy was made from (copyForStepChange): replace, never mutate.
  const step: Step = { ...found };
  plan.steps[index] = step;
  const value = deliveredValue(ended.step);
  step.received_outputs = { ...step.received_outputs, [dependencyKey(ref)]: value };
  if (ended.step.provides !== undefined) step.received_outputs[ended.step.provides] = value;
  step.blocked_by = (step.blocked_by ?? []).filter((d) => !sameRef(d, ref));
  plan.updated_at = now;
  if (step.blocked_by.length > 0 || step.status !== 'blocked') return [];
  step.status = 'pending';
  // Listed as a fan-in lists them (by the JSON-encoded key's bytes), not in the order they arrived: a step waiting on
  // other plans too is announced by this path or by the fan-in, whichever dependency ends last, and reads the same.
  step.received_outputs = Object.fromEntries(
    Object.entries(step.received_outputs).sort(([a], [b]) => byBytes(JSON.stringify(a), JSON.stringify(b))),
  );
  return [unblockedEvent(plan, step, ref, now)];
};
