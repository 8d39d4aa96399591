import type { PlanHubClient } from '../connect.ts';

/** Long enough for a connected node to answer, short enough that Ctrl-C still feels immediate. */
const UNSUBSCRIBE_DEADLINE_MS = 1000;

/**
 * Removes a command's subscription on the way out, as a courtesy to the node: during an outage there is nobody to
 * tell (the call would wait for a reconnect up to the client's call timeout), so it is skipped, and a slow answer is
 * not waited for. A subscription left behind belongs to this process's own agent id, so it disturbs no other reader.
 */
export const unsubscribeBriefly = async (client: PlanHubClient, subscriptionId: string): Promise<void> => {
  if (client.state !== 'connected') return;
  await client
    .unsubscribe({ subscription_id: subscriptionId }, { timeoutMs: UNSUBSCRIBE_DEADLINE_MS, retries: 0 })
    .catch(() => undefined);
};
