import type { Plan, Step, Waiter } from '@planhub/shared';
import { applyResolution } from '../core/dependencies/resolve.ts';
import type { Tx } from '../store/transaction.ts';
import { loadPlan, savePlan } from './plan-access.ts';

/**
 * Runs inside the transaction that ended `step`: the lookup of who waits on it and their resolution commit together
 * with the completion, so no node can die between them and lose a wake-up. `target` is mutated (waiters removed);
 * the caller saves it.
 */
export const settleDependents = async (tx: Tx, target: Plan, step: Step, now: string): Promise<Waiter[]> => {
  const waiters = target.waiters[step.id] ?? [];
  if (waiters.length === 0) return [];
  delete target.waiters[step.id];
  const byPlan = new Map<string, Waiter[]>();
  for (const w of waiters) byPlan.set(w.plan_id, [...(byPlan.get(w.plan_id) ?? []), w]);
  const unblocked: Waiter[] = [];
  for (const [planId, planWaiters] of byPlan) {
    // A plan waiting on another step of its own plan is the target itself.
    const plan = planId === target.plan_id ? target : structuredClone(await loadPlan(tx, planId));
    for (const w of planWaiters) {
      const events = applyResolution(
        plan,
        w.step_id,
        { agent_id: target.agent_id, plan_id: target.plan_id, step },
        now,
      );
      if (events.some((e) => e.event_type === 'step_unblocked')) unblocked.push(w);
      tx.emit(...events);
    }
    if (plan !== target) await savePlan(tx, plan);
  }
  return unblocked;
};
