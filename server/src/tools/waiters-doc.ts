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

/** The waiters on several nodes, in one round trip. */
export const loadWaitersOf = async (tx: Tx, nodes: readonly string[]): Promise<Waiter[][]> =>
  (
    await tx.readMany(
      documents.waiters,
      nodes.map((n) => [n]),
    )
  ).map((doc) => doc?.waiters ?? []);

/**
 * The counter a waiter joins: the target plan's (the waitersPerPlan bound), or the workspace's count of waits on
 * steps that do not exist yet (the pendingWaiters bound) when no plan holds the target.
 */
export const waiterCounter = (planId: string | undefined): string =>
  planId === undefined ? counterKeys.pendingWaiters() : counterKeys.waitersOn(planId);

/** Adds waiters on the step `node` and counts them on `counter` (see waiterCounter). Returns how many were new. */
export const addWaiters = async (
  tx: Tx,
  target: { counter: string; node: string },
  waiters: readonly Waiter[],
): Promise<number> => {
  const current = await loadWaiters(tx, target.node);
  const fresh = waiters.filter((w) => !current.some((c) => sameWaiter(c, w)));
  if (fresh.length === 0) return 0;
  tx.put(docKeys.waiters(target.node), { waiters: [...current, ...fresh] } satisfies WaitersDoc);
  tx.op({ op: 'incr', key: target.counter, by: fresh.length });
  return fresh.length;
};

/** Drops the waiters on one step (they resolve in the same commit) and releases them from their count. */
export const dropWaiters = (tx: Tx, target: { counter: string; node: string }, count: number): void => {
  tx.delete(docKeys.waiters(target.node));
  if (count > 0) tx.op({ op: 'incr', key: target.counter, by: -count });
};

/** Removes one waiter from a step's list (its step ended before the target did) and releases it from its count. */
export const removeWaiter = async (tx: Tx, target: { counter: string; node: string }, waiter: Waiter) => {
  const current = await loadWaiters(tx, target.node);
  const kept = current.filter((w) => !sameWaiter(w, waiter));
  if (kept.length === current.length) return;
  if (kept.length === 0) tx.delete(docKeys.waiters(target.node));
  else tx.put(docKeys.waiters(target.node), { waiters: kept } satisfies WaitersDoc);
  tx.op({ op: 'incr', key: target.counter, by: kept.length - current.length });
};

/**
 * Refuses a call that would leave more than `limit` waits on steps that do not exist yet in the workspace: such a
 * wait names any agent and step id, so without a bound bad input could store waiters without end.
 */
export const checkPendingBound = async (tx: Tx, added: number, limit: number): Promise<void> => {
  if (added === 0) return;
  const { counters } = await tx.collections({ counters: [counterKeys.pendingWaiters()] });
  const now = Math.max(0, counters[0] ?? 0);
  if (now + added > limit)
    fail(
      'RESOURCE_EXHAUSTED',
      `This workspace already has ${now} steps waiting on steps that do not exist yet; ${added} more would exceed ` +
        `the limit pendingWaiters (${limit}). Wait until the agents you depend on have created their plans (their ` +
        'plan_created event), or check the agent and step ids.',
      { kind: 'pendingWaiters', limit },
    );
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
