import { fail } from '@planhub/shared';
import type { ToolHandlers } from '../context.ts';
import { loadSubscriptions, saveSubscriptions } from '../subscriptions-doc.ts';

/** Removes the caller's own subscriptions only: another agent's subscription is not even visible from here. */
export const unsubscribe: ToolHandlers['unsubscribe'] = async (ctx, args) => {
  if (args.subscription_id === undefined && args.all !== true)
    fail('INVALID_ARGUMENT', 'Name the subscription_id to remove (see listSubscriptions), or pass all=true.');
  const removed = await ctx.transact(async (tx) => {
    const subs = await loadSubscriptions(tx, ctx.caller.agent_id);
    const gone = args.all === true ? subs : subs.filter((s) => s.subscription_id === args.subscription_id);
    if (args.all !== true && gone.length === 0)
      fail(
        'NOT_FOUND',
        `Subscription ${args.subscription_id} is not one of yours; ` +
          (subs.length === 0
            ? 'you have no subscriptions.'
            : `yours are ${subs.map((s) => s.subscription_id).join(', ')}.`) +
          ' You can only remove your own subscriptions.',
      );
    saveSubscriptions(
      tx,
      ctx.caller.agent_id,
      subs.filter((s) => !gone.includes(s)),
    );
    return gone.map((s) => s.subscription_id);
  });
  ctx.connection?.onUnsubscribed?.(removed);
  return {
    removed: removed.length,
    subscription_ids: removed,
    message: removed.length === 0 ? 'You had no subscriptions.' : `Removed ${removed.join(', ')}.`,
  };
};
