import type { Caller, EventEnvelope } from '@planhub/shared';
import { scanForward } from '../events/scan-log.ts';
import type { Services } from '../tools/context.ts';
import { readSubscriptions } from '../tools/subscriptions-doc.ts';
import type { SessionCursor } from './session-cursor.ts';
import { sessionMatcher } from './session-events.ts';
import type { WaitForEventsArgs } from './wait-for-events-tool.ts';

export interface WaitForEventsResult {
  events: EventEnvelope[];
  count: number;
  last_event_id: string;
  message: string;
  [key: string]: unknown;
}

const messageOf = (count: number, timeout: number, subscriptions: number): string => {
  if (count > 0) return `${count} new events, oldest first. Call waitForEvents again for the next ones.`;
  if (subscriptions === 0)
    return (
      `Nothing in ${timeout} s, and you have no subscriptions: only decisions on your own plans can arrive. ` +
      'Subscribe with subscribeToTasks (e.g. event_types ["step_unblocked", "step_completed"]) first.'
    );
  return `No new event in ${timeout} s. Call waitForEvents again to keep waiting.`;
};

/**
 * The agent's next events after the session's cursor, from the workspace's event log (so events committed on any
 * node count). With none there yet it waits up to `timeout` seconds for one from the hub; listening starts before
 * the read, so an event committed in between wakes the wait instead of being missed.
 */
export const waitForEvents = async (
  services: Services,
  caller: Caller,
  cursor: SessionCursor,
  args: WaitForEventsArgs,
  signal: AbortSignal,
): Promise<WaitForEventsResult> => {
  const { store, hub, config } = services;
  const subscriptions = await readSubscriptions(store, caller.workspace, caller.agent_id);
  const match = sessionMatcher(caller, subscriptions);
  const wait =
    args.timeout > 0 ? hub.waitFor(caller.workspace, match, { timeoutMs: args.timeout * 1000, signal }) : undefined;
  if (args.after_event !== undefined) cursor.moveTo(args.after_event);
  const from = cursor.position;
  try {
    const scan = (after: string) =>
      scanForward(store, caller.workspace, after, args.limit, match, config.eventRetention);
    let found = await scan(from);
    if (found.events.length === 0 && wait && (await wait.promise)) found = await scan(found.cursor ?? from);
    const to = found.cursor ?? from;
    cursor.advance(from, to);
    return {
      events: found.events,
      count: found.events.length,
      last_event_id: to,
      message: messageOf(found.events.length, args.timeout, subscriptions.length),
    };
  } finally {
    wait?.cancel();
  }
};
