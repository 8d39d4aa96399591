import type { Subscription } from '@planhub/shared';
import type { SubscriptionsDoc } from '../store/documents/documents.ts';
import { documents } from '../store/documents/documents.ts';
import { docKeys } from '../store/keys.ts';
import type { Store } from '../store/store.ts';
import type { Tx } from '../store/transaction.ts';

export type { SubscriptionsDoc };

const REMEMBERED_REMOVALS = 50;

export const loadSubscriptionsDoc = async (tx: Tx, agentId: string): Promise<SubscriptionsDoc> => {
  const doc = await tx.read(documents.subscriptions, agentId);
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
  const key = documents.subscriptions.key(agentId);
  const [doc] = await store.load(workspace, [key]);
  return documents.subscriptions.decode(key, doc?.value)?.subscriptions ?? [];
};
