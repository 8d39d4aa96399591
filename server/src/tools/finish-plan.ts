import type { Plan } from '@planhub/shared';
import { endPlan, type PlanEnd } from '../core/plans/plan-lifecycle.ts';
import type { Tx } from '../store/transaction.ts';
import { releaseAwaited } from './awaited-steps.ts';
import { settleDependents } from './dependents.ts';
import { savePlan } from './plan-access.ts';

/**
 * Ends a plan; the steps its end skipped, and those it never got, resolve whoever waits on them, in the same atomic
 * change.
 */
export const finishPlan = async (tx: Tx, current: Plan, status: PlanEnd, summary: string | undefined, now: string) => {
  const { plan, events } = endPlan(current, status, summary, now);
  tx.emit(...events);
  await settlePlanEnd(tx, current, plan, now);
  await savePlan(tx, plan);
  return plan;
};

/**
 * What every end of a plan owes its waiters, however the end was decided (a call that ends the plan, or seed 004's
 * last step ending): each step whose status changed from `before` settles its dependents, and waits on steps the
 * plan never got are released as skipped. The caller saves `plan` in the same commit.
 */
export const settlePlanEnd = async (tx: Tx, before: Plan, plan: Plan, now: string): Promise<void> => {
  for (const step of plan.steps)
    if (before.steps.find((s) => s.id === step.id)?.status !== step.status) await settleDependents(tx, plan, step, now);
  await releaseAwaited(tx, plan, now);
};
