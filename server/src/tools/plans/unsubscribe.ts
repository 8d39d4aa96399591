import { fail } from '@planhub/shared';
import { unsubscribeAnswer } from '../../events/subscription-views.ts';
import type { ToolHandlers } from '../context.ts';
import { loadSubscriptionsDoc, saveSubscriptions } from '../subscriptions-doc.ts';

/**
 * Removes the caller's own subscriptions only: another agent's subscription is not even visible from here, so naming
 * one answers upstream's "Subscription not found".
 */
export const unsubscribe: ToolHandlers['unsubscribe'] = async (ctx, args) => {
  if (args.subscription_id === undefined && args.all !== true)
    fail(
      'INVALID_ARGUMENT',
      'subscription_id is required. Name the subscription to remove (listSubscriptions shows yours), or pass all=true.',
    );
  const outcome = await ctx.transact(async (tx) => {
    const doc = await loadSubscriptionsDoc(tx, ctx.caller.agent_id);
    const subs = doc.subscriptions;
    const gone = args.all === true ? subs : subs.filter((s) => s.subscription_id === args.subscription_id);
    // A read-only tool has no request log: a retry after a lost answer finds the subscription already gone.
    if (gone.length === 0 && args.subscription_id !== undefined && doc.removed.includes(args.subscription_id))
      return { removed: [], again: true, yours: [] };
    if (args.all !== true && gone.length === 0)
      return { removed: [], again: false, yours: subs.map((s) => s.subscription_id) };
    const removed = gone.map((s) => s.subscription_id);
    saveSubscriptions(tx, ctx.caller.agent_id, {
      subscriptions: subs.filter((s) => !gone.includes(s)),
      removed: [...doc.removed, ...removed],
    });
    return { removed, again: false, yours: [] };
  });
  const { removed } = outcome;
  ctx.connection?.onUnsubscribed?.(removed);
  return unsubscribeAnswer(args, removed, outcome.again, outcome.yours);
};
