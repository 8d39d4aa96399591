import type { Subscription } from '@planhub/shared';
import { docKeys } from '../store/keys.ts';
import type { Store } from '../store/store.ts';
import type { Tx } from '../store/transaction.ts';

/** An agent's subscriptions live in one document, so any node it reconnects to finds them. */
export interface SubscriptionsDoc {
  subscriptions: Subscription[];
  /** Ids removed lately, newest last: a retried unsubscribe whose first answer was lost is answered, not refused. */
  removed: string[];
}

const REMEMBERED_REMOVALS = 50;

export const loadSubscriptionsDoc = async (tx: Tx, agentId: string): Promise<SubscriptionsDoc> => {
  const doc = await tx.get<Partial<SubscriptionsDoc>>(docKeys.subscriptions(agentId));
  return { subscriptions: doc?.subscriptions ?? [], removed: doc?.removed ?? [] };
};

export const loadSubscriptions = async (tx: Tx, agentId: string): Promise<Subscription[]> =>
  (await loadSubscriptionsDoc(tx, agentId)).subscriptions;

export const saveSubscriptions = (tx: Tx, agentId: string, doc: SubscriptionsDoc): void => {
  const removed = doc.removed.slice(-REMEMBERED_REMOVALS);
  if (doc.subscriptions.length === 0 && removed.length === 0) tx.delete(docKeys.subscriptions(agentId));
  else tx.put(docKeys.subscriptions(agentId), { subscriptions: doc.subscriptions, removed } satisfies SubscriptionsDoc);
};

/** The same read outside a call (a connection starting its event stream). */
export const readSubscriptions = async (store: Store, workspace: string, agentId: string): Promise<Subscription[]> => {
  const [doc] = await store.load(workspace, [docKeys.subscriptions(agentId)]);
  return (doc?.value as Partial<SubscriptionsDoc> | undefined)?.subscriptions ?? [];
};
