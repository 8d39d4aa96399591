import type { Subscription } from '@planhub/shared';
import { compareEventIds, fail } from '@planhub/shared';
import { canonicalFilter, isEcho, matchesFilter, sameFilter } from '../../events/match.ts';
import { pastLogEndWarning } from '../../events/past-log-end.ts';
import { trimmedAfter, trimmedGapWarning } from '../../events/trimmed-gap.ts';
import { SCAN_BUDGET, historyStart, scanWork } from '../../events/scan-log.ts';
import { subscriptionFilter } from '../../events/subscription-views.ts';
import type { CallContext, ConnectionHooks, ToolHandlers } from '../context.ts';
import { loadSubscriptionsDoc, saveSubscriptions } from '../subscriptions-doc.ts';
import { withinBudget } from '../../store/call-budget.ts';

const describe = (sub: Subscription) =>
  `${sub.event_types.join(', ')} from ${sub.agent_id === '*' ? 'any agent' : sub.agent_id}` +
  (sub.plan_id !== undefined ? ` in plan ${sub.plan_id}` : '') +
  (sub.step_id !== undefined ? ` for ${sub.step_id}` : '');

/** The log's newest event id, read within what is left of the call's store deadline. */
const logHead = async (ctx: CallContext): Promise<string> =>
  (await withinBudget(ctx.budget, () => ctx.services.store.readEvents(ctx.caller.workspace, { count: 1 }))).at(-1)
    ?.event_id ?? '0-0';

/** Live events only: the caller asked for nothing from before this call. */
const LIVE_ONLY = '$';

/**
 * A session that reads its events through one cursor (MCP's waitForEvents) would hand out earlier events again if
 * every subscription rewound it to its own history: there the default stays live-only, history is read on request.
 */
const rewindsOneCursor = (connection: ConnectionHooks | undefined): boolean => connection?.noLongWaits !== undefined;

/**
 * Where the stream starts: after the caller's cursor, at the log's head for "$", and by default just before the
 * matching recent history (bounded by SCAN_BUDGET log entries, charged to the caller like a getTaskEvents scan).
 */
const replayFrom = async (ctx: CallContext, sub: Subscription, afterEvent: string | undefined) => {
  if (afterEvent === LIVE_ONLY) return undefined;
  if (afterEvent !== undefined || !ctx.connection?.onSubscribed || rewindsOneCursor(ctx.connection)) return afterEvent;
  const viewer = ctx.caller;
  const start = await historyStart(
    ctx.services.store,
    viewer.workspace,
    (e) => matchesFilter(sub, e) && !isEcho(viewer, e),
    SCAN_BUDGET,
  );
  // The stream reads the same window again while replaying it.
  await ctx.chargeWork?.(2 * scanWork(start));
  return start.after;
};

/**
 * Stores the subscription (an identical filter returns the existing one, so resubscribing after a reconnect never
 * duplicates it), then lets the connection replay the history (after `after_event`, or the recent matching history
 * when it is absent) and go live.
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
      // Only for a new subscription: a resubscription after a reconnect (the common call) reads no log.
      created_after_event: await logHead(ctx),
    };
    saveSubscriptions(tx, caller.agent_id, { ...doc, subscriptions: [...subs, created] });
    return { sub: created, existed: false };
  });
  const from = await replayFrom(ctx, sub, args.after_event);
  // Only a cursor the caller gave can be behind what the log trimmed; the default replay starts within the log.
  const trimmed =
    args.after_event !== undefined && from !== undefined
      ? await trimmedAfter(services.store, caller.workspace, from)
      : undefined;
  const stream = ctx.connection?.onSubscribed
    ? await ctx.connection.onSubscribed(sub, from)
    : { replayed: 0, last_event_id: await logHead(ctx), already_live: false };
  // An ordered stream cannot go back: say so, or a model expecting the replay it asked for would wait in vain.
  const skipped =
    stream.already_live && from !== undefined && compareEventIds(from, stream.last_event_id) < 0 ? from : undefined;
  // A stream that starts after `from` only moves forward from it; one that answers a position before it restarted
  // from the oldest kept event, `from` being past the log's end (transport/event-stream.ts). An MCP session's cursor
  // is not such a stream: a later after_event leaves it where it is.
  const restarted =
    ctx.connection?.onSubscribed !== undefined &&
    !rewindsOneCursor(ctx.connection) &&
    !stream.already_live &&
    from !== undefined &&
    compareEventIds(stream.last_event_id, from) < 0;
  return {
    subscription_id: sub.subscription_id,
    agent_id: sub.agent_id,
    event_types: sub.event_types,
    filter: subscriptionFilter(sub),
    ...(sub.plan_id !== undefined ? { plan_id: sub.plan_id } : {}),
    ...(sub.step_id !== undefined ? { step_id: sub.step_id } : {}),
    replayed: stream.replayed,
    last_event_id: stream.last_event_id,
    // The history this call could not push (the stream was already running): getTaskEvents reads it from here.
    ...(skipped !== undefined ? { history_after: skipped } : {}),
    ...(trimmed !== undefined && !restarted
      ? {
          warning: trimmedGapWarning(
            'after_event',
            from!,
            trimmed,
            skipped !== undefined
              ? 'this connection already received events, so nothing was replayed; getTaskEvents reads what the log ' +
                  'kept after history_after.'
              : 'the history was replayed from the oldest event kept, and events go on from there.',
          ),
        }
      : {}),
    ...(restarted
      ? {
          warning: pastLogEndWarning(
            'after_event',
            from,
            'the history was replayed from the oldest event kept, and events go on from there.',
          ),
        }
      : {}),
    message:
      `Subscribed to ${sub.event_types.length} event type(s). Events will be delivered inline. ` +
      `${existed ? 'You were already subscribed' : 'Subscription'} ${sub.subscription_id}: ${describe(sub)}. ` +
      (stream.replayed > 0 ? `${stream.replayed} earlier events were replayed. ` : '') +
      (skipped !== undefined
        ? `This connection already receives events (up to ${stream.last_event_id}), so nothing before that was ` +
          `replayed: read earlier events with getTaskEvents(after_event="${skipped}"). `
        : '') +
      // An MCP host hands the model no pushes: there the events come from waitForEvents, which the answer names.
      (rewindsOneCursor(ctx.connection)
        ? 'Receive the matching events with waitForEvents (it returns as soon as one arrives): do not poll.'
        : 'Matching events arrive by themselves as "event" pushes: do not poll.'),
  };
};
