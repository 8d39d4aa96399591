import type { Subscription } from '@planhub/shared';
import { docKeys } from '../store/keys.ts';
import type { Store } from '../store/store.ts';
import type { Tx } from '../store/transaction.ts';

/** An agent's subscriptions live in one document, so any node it reconnects to finds them. */
interface SubscriptionsDoc {
  subscriptions: Subscription[];
}

export const loadSubscriptions = async (tx: Tx, agentId: string): Promise<Subscription[]> =>
  (await tx.get<SubscriptionsDoc>(docKeys.subscriptions(agentId)))?.subscriptions ?? [];

export const saveSubscriptions = (tx: Tx, agentId: string, subscriptions: Subscription[]): void => {
  if (subscriptions.length === 0) tx.delete(docKeys.subscriptions(agentId));
  else tx.put(docKeys.subscriptions(agentId), { subscriptions } satisfies SubscriptionsDoc);
};

/** The same read outside a call (a connection starting its event stream). */
export const readSubscriptions = async (store: Store, workspace: string, agentId: string): Promise<Subscription[]> => {
  const [doc] = await store.load(workspace, [docKeys.subscriptions(agentId)]);
  return (doc?.value as SubscriptionsDoc | undefined)?.subscriptions ?? [];
};
