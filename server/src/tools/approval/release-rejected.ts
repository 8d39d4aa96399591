import type { Plan } from '@planhub/shared';
import { stepNode } from '../../core/dependencies/attach.ts';
import { docKeys } from '../../store/keys.ts';
import type { Tx } from '../../store/transaction.ts';
import { releaseAwaited } from '../awaited-steps.ts';
import { settleDependents } from '../dependents.ts';

/**
 * A rejected plan's steps will never run. Other agents already waiting on them (they may register while the plan
 * awaits approval) resolve as skipped rather than hang, and the plan's edges leave the workspace graph. The plan's
 * own steps waiting on each other are simply dropped: waking them would announce work that will never happen.
 * `plan` is mutated; the caller saves it.
 */
export const releaseRejected = async (tx: Tx, plan: Plan, now: string): Promise<void> => {
  for (const [stepId, waiters] of Object.entries(plan.waiters)) {
    const others = waiters.filter((w) => w.plan_id !== plan.plan_id);
    if (others.length > 0) plan.waiters[stepId] = others;
    else delete plan.waiters[stepId];
  }
  // Every step's waiter list in one round trip; settleDependents then reads them from the transaction.
  await tx.getMany(plan.steps.map((s) => docKeys.waiters(stepNode(plan.plan_id, s.id))));
  for (const step of plan.steps)
    await settleDependents(tx, plan, { ...step, status: 'skipped', result: `plan ${plan.status}` }, now);
  await releaseAwaited(tx, plan, now);
};
