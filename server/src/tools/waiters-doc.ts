import type { Waiter } from '@planhub/shared';
import { documents } from '../store/documents/documents.ts';
import { docKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';

/** Who waits on one step from other plans, by the target's node: written when a wait is added, read once it ends. */
interface WaitersDoc {
  waiters: Waiter[];
}

const sameWaiter = (a: Waiter, b: Waiter) =>
  a.agent_id === b.agent_id && a.plan_id === b.plan_id && a.step_id === b.step_id;

export const loadWaiters = async (tx: Tx, node: string): Promise<Waiter[]> =>
  (await tx.read(documents.waiters, node))?.waiters ?? [];

export const addWaiters = async (tx: Tx, node: string, waiters: readonly Waiter[]): Promise<void> => {
  const current = await loadWaiters(tx, node);
  const fresh = waiters.filter((w) => !current.some((c) => sameWaiter(c, w)));
  if (fresh.length > 0) tx.put(docKeys.waiters(node), { waiters: [...current, ...fresh] } satisfies WaitersDoc);
};

export const dropWaiters = (tx: Tx, node: string): void => tx.delete(docKeys.waiters(node));
