import type { Subscription } from '@planhub/shared';
import { compareEventIds, fail } from '@planhub/shared';
import { canonicalFilter, sameFilter } from '../../events/match.ts';
import { subscriptionFilter } from '../../events/subscription-views.ts';
import type { CallContext, ToolHandlers } from '../context.ts';
import { loadSubscriptionsDoc, saveSubscriptions } from '../subscriptions-doc.ts';

const describe = (sub: Subscription) =>
  `${sub.event_types.join(', ')} from ${sub.agent_id === '*' ? 'any agent' : sub.agent_id}` +
  (sub.plan_id !== undefined ? ` in plan ${sub.plan_id}` : '') +
  (sub.step_id !== undefined ? ` for ${sub.step_id}` : '');

/** Without a live connection (nothing to push to) the stream position is simply the log's newest event. */
const logHead = async (ctx: CallContext): Promise<string> =>
  (await ctx.services.store.readEvents(ctx.caller.workspace, { count: 1 })).at(-1)?.event_id ?? '0-0';

/**
 * Stores the subscription (an identical filter returns the existing one, so resubscribing after a reconnect never
 * duplicates it), then lets the connection replay history after `after_event` and go live.
 */
export const subscribeToTasks: ToolHandlers['subscribeToTasks'] = async (ctx, args) => {
  const { caller, services } = ctx;
  const filter = canonicalFilter(args);
  const { sub, existed } = await ctx.transact(async (tx) => {
    const doc = await loadSubscriptionsDoc(tx, caller.agent_id);
    const subs = doc.subscriptions;
    const existing = subs.find((s) => sameFilter(s, filter));
    if (existing) return { sub: existing, existed: true };
    const limit = services.config.limits.subscriptionsPerAgent;
    if (subs.length >= limit)
      fail(
        'RESOURCE_EXHAUSTED',
        `You already have ${subs.length} subscriptions (limit ${limit}). Remove some with unsubscribe, or use one ` +
          'subscription with several event_types.',
      );
    const created: Subscription = {
      subscription_id: `sub_${services.newId()}`,
      ...filter,
      created_at: services.now(),
    };
    saveSubscriptions(tx, caller.agent_id, { ...doc, subscriptions: [...subs, created] });
    return { sub: created, existed: false };
  });
  const stream = ctx.connection?.onSubscribed
    ? await ctx.connection.onSubscribed(sub, args.after_event)
    : { replayed: 0, last_event_id: await logHead(ctx), already_live: false };
  // An ordered stream cannot go back: say so, or a model expecting the replay it asked for would wait in vain.
  const skipped =
    stream.already_live &&
    args.after_event !== undefined &&
    compareEventIds(args.after_event, stream.last_event_id) < 0;
  return {
    subscription_id: sub.subscription_id,
    agent_id: sub.agent_id,
    event_types: sub.event_types,
    filter: subscriptionFilter(sub),
    ...(sub.plan_id !== undefined ? { plan_id: sub.plan_id } : {}),
    ...(sub.step_id !== undefined ? { step_id: sub.step_id } : {}),
    replayed: stream.replayed,
    last_event_id: stream.last_event_id,
    message:
      `Subscribed to ${sub.event_types.length} event type(s). Events will be delivered inline. ` +
      `${existed ? 'You were already subscribed' : 'Subscription'} ${sub.subscription_id}: ${describe(sub)}. ` +
      (stream.replayed > 0 ? `${stream.replayed} earlier events were replayed. ` : '') +
      (skipped
        ? `This connection already receives events (up to ${stream.last_event_id}), so nothing before that was ` +
          `replayed: read earlier events with getTaskEvents(after_event="${args.after_event}"). `
        : '') +
      'Matching events arrive by themselves as "event" pushes: do not poll.',
  };
};
