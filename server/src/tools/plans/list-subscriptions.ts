import { countSubscriptionMatches } from '../../events/match-counts.ts';
import { SCAN_BUDGET, scanWork } from '../../events/scan-log.ts';
import { subscriptionView } from '../../events/subscription-views.ts';
import type { ToolHandlers } from '../context.ts';
import { loadSubscriptions } from '../subscriptions-doc.ts';

export const listSubscriptions: ToolHandlers['listSubscriptions'] = async (ctx) => {
  const { caller, services } = ctx;
  const subscriptions = await ctx.transact((tx) => loadSubscriptions(tx, caller.agent_id));
  // One bounded read of the log for all of them, charged like a getTaskEvents scan of the same length.
  const { counts, ...scan } = await countSubscriptionMatches(
    services.store,
    caller.workspace,
    subscriptions,
    SCAN_BUDGET,
  );
  await ctx.chargeWork?.(scanWork(scan));
  return {
    subscriptions: subscriptions.map((s) =>
      subscriptionView(s, caller.agent_id, counts.get(s.subscription_id) ?? { count: 0, complete: false }),
    ),
    count: subscriptions.length,
  };
};
