import type { Waiter } from '@planhub/shared';
import { fail } from '@planhub/shared';
import { documents } from '../store/documents/documents.ts';
import { counterKeys, docKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';

/** Who waits on one step from other plans, by the target's node: written when a wait is added, read once it ends. */
interface WaitersDoc {
  waiters: Waiter[];
}

const sameWaiter = (a: Waiter, b: Waiter) =>
  a.agent_id === b.agent_id && a.plan_id === b.plan_id && a.step_id === b.step_id;

export const loadWaiters = async (tx: Tx, node: string): Promise<Waiter[]> =>
  (await tx.read(documents.waiters, node))?.waiters ?? [];

/**
 * Adds waiters on the step `node` of plan `planId` and counts them on the plan's waiter counter (the
 * waitersPerPlan bound). Returns how many were new.
 */
export const addWaiters = async (
  tx: Tx,
  target: { planId: string; node: string },
  waiters: readonly Waiter[],
): Promise<number> => {
  const current = await loadWaiters(tx, target.node);
  const fresh = waiters.filter((w) => !current.some((c) => sameWaiter(c, w)));
  if (fresh.length === 0) return 0;
  tx.put(docKeys.waiters(target.node), { waiters: [...current, ...fresh] } satisfies WaitersDoc);
  tx.op({ op: 'incr', key: counterKeys.waitersOn(target.planId), by: fresh.length });
  return fresh.length;
};

/** Drops the waiters on one step (they resolve in the same commit) and releases them from the plan's count. */
export const dropWaiters = (tx: Tx, target: { planId: string; node: string }, count: number): void => {
  tx.delete(docKeys.waiters(target.node));
  if (count > 0) tx.op({ op: 'incr', key: counterKeys.waitersOn(target.planId), by: -count });
};

/**
 * Refuses a call that would leave more than `limit` waiters from other plans on one plan. `added`: new waiters per
 * target plan in this call. Checked on the counter as read, so concurrent calls on different steps of one plan can
 * overshoot by what they add at once; the counter stays exact.
 */
export const checkWaiterBound = async (tx: Tx, added: ReadonlyMap<string, number>, limit: number): Promise<void> => {
  const planIds = [...added.keys()];
  if (planIds.length === 0) return;
  const { counters } = await tx.collections({ counters: planIds.map(counterKeys.waitersOn) });
  planIds.forEach((planId, i) => {
    const now = Math.max(0, counters[i] ?? 0);
    const more = added.get(planId) ?? 0;
    if (now + more > limit)
      fail(
        'RESOURCE_EXHAUSTED',
        `Plan ${planId} already has ${now} waiting steps from other plans; ${more} more would exceed the limit ` +
          `waitersPerPlan (${limit}). Wait on fewer of its steps, or wait until some of them end.`,
        { kind: 'waitersPerPlan', limit, plan_id: planId },
      );
  });
};
