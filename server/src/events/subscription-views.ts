import type { Subscription } from '@planhub/shared';
import type { MatchCount } from './match-counts.ts';

const ANY_AGENT = '*';

/**
 * Upstream's `filter` object: the parts a subscription does not narrow by are null, the agent too (PlanHub keeps
 * "any agent" as "*", the form its flat `agent_id` field answers).
 */
export const subscriptionFilter = (sub: Subscription) => ({
  agent_id: sub.agent_id === ANY_AGENT ? null : sub.agent_id,
  plan_id: sub.plan_id ?? null,
  step_id: sub.step_id ?? null,
  event_types: sub.event_types,
});

/**
 * A subscription as listSubscriptions answers it: upstream's fields (subscriber_agent, filter, match_count) beside
 * PlanHub's flat filter fields. match_count is counted from the event log when asked (match-counts.ts);
 * match_count_complete says whether that count reaches back to the subscription's creation.
 */
export const subscriptionView = (sub: Subscription, subscriber: string, matches: MatchCount) => ({
  ...sub,
  subscriber_agent: subscriber,
  filter: subscriptionFilter(sub),
  action_type: 'callback',
  action_target: null,
  expires_after: null,
  match_count: matches.count,
  match_count_complete: matches.complete,
});

/** unsubscribe's answer: upstream's success/subscription_id/message first, PlanHub's count and guidance after. */
export const unsubscribeAnswer = (
  args: { subscription_id?: string | undefined; all?: boolean | undefined },
  removed: readonly string[],
  again: boolean,
  yours: readonly string[],
) => {
  const base = { subscription_id: args.subscription_id ?? null, removed: removed.length, subscription_ids: removed };
  if (again) return { ...base, success: true, message: `Subscription removed (${args.subscription_id} already was).` };
  if (removed.length > 0) return { ...base, success: true, message: `Subscription removed: ${removed.join(', ')}.` };
  if (args.all === true) return { ...base, success: true, message: 'You had no subscriptions.' };
  return {
    ...base,
    success: false,
    message:
      'Subscription not found. ' +
      (yours.length === 0 ? 'You have no subscriptions.' : `Yours are ${yours.join(', ')}.`) +
      ' You can only remove your own subscriptions.',
  };
};
