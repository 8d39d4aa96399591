import type { ToolHandlers } from '../context.ts';
import { loadSubscriptions } from '../subscriptions-doc.ts';

export const listSubscriptions: ToolHandlers['listSubscriptions'] = (ctx) =>
  ctx.transact(async (tx) => {
    const subscriptions = await loadSubscriptions(tx, ctx.caller.agent_id);
    return { subscriptions, count: subscriptions.length };
  });
