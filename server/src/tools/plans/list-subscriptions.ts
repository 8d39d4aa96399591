import { subscriptionView } from '../../events/subscription-views.ts';
import type { ToolHandlers } from '../context.ts';
import { loadSubscriptions } from '../subscriptions-doc.ts';

export const listSubscriptions: ToolHandlers['listSubscriptions'] = (ctx) =>
  ctx.transact(async (tx) => {
    const subscriptions = await loadSubscriptions(tx, ctx.caller.agent_id);
    return {
      subscriptions: subscriptions.map((s) => subscriptionView(s, ctx.caller.agent_id)),
      count: subscriptions.length,
    };
  });
