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
  for (const step of plan.steps)
    if (current.steps.find((s) => s.id === step.id)?.status !== step.status)
      await settleDependents(tx, plan, step, now);
  await releaseAwaited(tx, plan, now);
  await savePlan(tx, plan);
  return plan;
};
