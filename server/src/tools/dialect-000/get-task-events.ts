import type { EventEnvelope, EventType } from '@planhub/shared';
import { EVENT_TYPES } from '@planhub/shared';
import { matchesFilter } from '../../events/match.ts';
import { scanForward, scanNewest } from '../../events/scan-log.ts';
import type { ToolHandlers } from '../context.ts';

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);
const isEventType = (type: string): type is EventType => KNOWN.has(type);

/**
 * Seed 000's getTaskEvents plus a cursor and a long-poll. Without after_event: the newest `limit` matching events.
 * With it: the next matching events after it, oldest first. last_event_id is the cursor for the next call. With a
 * timeout and nothing to return, the call waits (up to 30 s) for the next matching event from any node.
 */
export const getTaskEvents: ToolHandlers['getTaskEvents'] = async (ctx, args) => {
  const { store, hub, config } = ctx.services;
  const workspace = ctx.caller.workspace;
  const known = args.event_types?.filter(isEventType);
  const filter = { ...args, event_types: known !== undefined && known.length > 0 ? known : undefined };
  const match = (e: EventEnvelope) => matchesFilter(filter, e);
  const maxScan = config.eventRetention;
  // Listening starts before the read, so an event committed in between wakes the wait instead of being missed.
  const wait =
    args.timeout > 0
      ? hub.waitFor(workspace, match, { timeoutMs: args.timeout * 1000, signal: ctx.signal })
      : undefined;
  try {
    let scan =
      args.after_event !== undefined
        ? await scanForward(store, workspace, args.after_event, args.limit, match, maxScan)
        : await scanNewest(store, workspace, args.limit, match, maxScan);
    if (scan.events.length === 0 && wait && (await wait.promise))
      scan = await scanForward(store, workspace, scan.cursor ?? '0-0', args.limit, match, maxScan);
    return { events: scan.events, count: scan.events.length, last_event_id: scan.cursor ?? null };
  } finally {
    wait?.cancel();
  }
};
