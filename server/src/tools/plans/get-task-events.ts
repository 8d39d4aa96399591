import type { EventEnvelope, EventType } from '@planhub/shared';
import { EVENT_TYPES, EventIdSchema, MAX_WAIT_SECONDS, fail, isPresenceEvent } from '@planhub/shared';
import { eventsThatFit } from '../../events/answer-bytes.ts';
import { matchesFilter } from '../../events/match.ts';
import { LOG_START, isPastLogEnd, pastLogEndWarning } from '../../events/past-log-end.ts';
import { trimmedAfter, trimmedGapWarning } from '../../events/trimmed-gap.ts';
import { SCAN_BUDGET, scanBackward, scanForward, scanWork } from '../../events/scan-log.ts';
import { SEARCHED_BYTES_BUDGET, mentions, searchCost } from '../../events/text-match.ts';
import type { ToolHandlers } from '../context.ts';

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);
const LIVE_ONLY = '$';
const isEventType = (type: string): type is EventType => KNOWN.has(type);

/**
 * Without event_types, what agents report: the server's own observations (agent_online, agent_offline,
 * step_stalled) come only when named, so a reader of "everything" sees the log it saw before they existed.
 */
const REPORTED = EVENT_TYPES.filter((t) => !isPresenceEvent(t));

type Args = Parameters<ToolHandlers['getTaskEvents']>[1];

/**
 * A wait on every agent's events ends at the first event anyone publishes, so it waits for nothing in particular;
 * upstream refuses it with these words, which models were taught to correct. PlanHub's own filters narrow too.
 */
const narrowed = (args: Args): boolean =>
  args.agent_id !== undefined ||
  (args.event_types?.length ?? 0) > 0 ||
  args.after_event !== undefined ||
  args.plan_id !== undefined ||
  args.step_id !== undefined ||
  args.text !== undefined;

const UNNARROWED_WAIT =
  'timeout requires at least one of: agent_id, event_types, or after_event.  Without any narrowing the wait returns ' +
  'on the first event from any agent, making the timeout ineffective. plan_id, step_id or text narrow it as well; ' +
  'to wait for what comes after your last read, pass its cursor (or last_event_id) as after_event.';

/**
 * Seed 000's getTaskEvents plus cursors, a text filter and a long-poll. Without a cursor: the newest `limit` matching
 * events. With after_event: the next matching events after it, oldest first; last_event_id is the last of them (as
 * upstream), `cursor` where the read stopped, to continue from. With before_event: the newest matching events older than it (paging back through history); next_before is
 * the cursor for the page before. Each call looks at no more than SCAN_BUDGET log entries, so a filter that matches
 * little returns fewer events with a cursor to continue instead of walking the whole log, and what it looked at is
 * charged to the caller's call budget (scanWork). With a timeout and nothing
 * to return, the call waits (up to 30 s) for the next matching event from any node.
 */
export const getTaskEvents: ToolHandlers['getTaskEvents'] = async (ctx, args) => {
  const { store, hub } = ctx.services;
  const workspace = ctx.caller.workspace;
  if (args.after_event !== undefined && args.before_event !== undefined)
    fail('INVALID_ARGUMENT', 'Pass after_event (read forward) or before_event (page back), not both.');
  // Clamped, not refused, as upstream does: a host that asks for a minute gets the longest wait there is.
  const timeout = Math.min(MAX_WAIT_SECONDS, Math.max(0, args.timeout));
  if (timeout > 0 && args.before_event === undefined && !narrowed(args)) fail('INVALID_ARGUMENT', UNNARROWED_WAIT);
  const text = args.text;
  // Unknown types are dropped, as upstream does; when none is known (or none is named), every reported type matches.
  const known = args.event_types?.filter(isEventType);
  const filter = { ...args, event_types: known !== undefined && known.length > 0 ? known : REPORTED };
  const searched = { bytes: 0 };
  // A text search stops at SEARCHED_BYTES_BUDGET of payload text and answers its cursor, as a scan stops at
  // SCAN_BUDGET entries: one call's search holds the node for milliseconds, however large the payloads.
  const spent = () => searched.bytes >= SEARCHED_BYTES_BUDGET;
  const match = (e: EventEnvelope) => matchesFilter(filter, e) && (text === undefined || mentions(e, text, searched));
  // Upstream: "If the id is no longer in the window, all events are returned". An id this log never wrote (another
  // system's, a typo) is such an id: the read starts at the oldest kept event, and the answer says so.
  // "$" is subscribeToTasks's "live events only": here, what comes after the newest event now.
  const live = args.after_event === LIVE_ONLY;
  const foreign = args.after_event !== undefined && !live && !EventIdSchema.safeParse(args.after_event).success;
  const backward = args.after_event === undefined;
  // Read before listening starts: an event committed after this read is after the head, so the scan finds it.
  const head = live ? ((await store.readEvents(workspace, { count: 1 }))[0]?.event_id ?? '0-0') : undefined;
  const waits = timeout > 0 && args.before_event === undefined;
  const release = waits ? ctx.services.waitSlots.take(ctx.caller) : undefined;
  // Listening starts before the read, so an event committed in between wakes the wait instead of being missed.
  const wait = waits ? hub.waitFor(workspace, match, { timeoutMs: timeout * 1000, signal: ctx.signal }) : undefined;
  try {
    let after = foreign ? LOG_START : (head ?? args.after_event ?? LOG_START);
    // Asked beside the scan (no extra wait): whether the log trimmed events after the caller's cursor.
    const gap = !backward && !foreign && !live ? trimmedAfter(store, workspace, after) : undefined;
    gap?.catch(() => undefined);
    let scan = backward
      ? await scanBackward(store, workspace, args.before_event, args.limit, match, SCAN_BUDGET, spent)
      : await scanForward(store, workspace, after, args.limit, match, SCAN_BUDGET, spent);
    // Nothing at all after the cursor: it may lie past the log's end (a reset log), which would leave this reader deaf
    // for good. Asked only then, so a reader whose read finds entries pays nothing for the check.
    const pastEnd =
      !backward && !foreign && !live && scan.scanned === 0 && (await isPastLogEnd(store, workspace, after));
    if (pastEnd) {
      after = LOG_START;
      scan = await scanForward(store, workspace, after, args.limit, match, SCAN_BUDGET, spent);
    }
    let scanned = scan.scanned;
    let parsed = scan.bytes;
    let forward = !backward;
    // A forward scan cut by its budget returns its cursor at once: older events it has not looked at come first.
    const caughtUp = backward || scan.complete;
    if (scan.events.length === 0 && caughtUp && wait && (await wait.promise)) {
      const from = backward ? (scan.cursor ?? '0-0') : (scan.cursor ?? after);
      const next = await scanForward(store, workspace, from, args.limit, match, SCAN_BUDGET, spent);
      scanned += next.scanned;
      parsed += next.bytes;
      scan = { ...next, nextBefore: scan.nextBefore };
      forward = true;
    }
    // Within ANSWER_EVENT_BYTES: what does not fit is left for the next call, through the cursor it continues from.
    const fit = eventsThatFit(scan.events, forward ? 'oldest' : 'newest');
    if (fit < scan.events.length)
      scan = forward
        ? { ...scan, events: scan.events.slice(0, fit), cursor: scan.events[fit - 1]?.event_id }
        : { ...scan, events: scan.events.slice(-fit), nextBefore: scan.events.at(-fit)?.event_id };
    const trimmed = await gap;
    await ctx.chargeWork?.(scanWork({ scanned, bytes: parsed }) + searchCost(searched.bytes));
    return {
      events: scan.events,
      count: scan.events.length,
      // Upstream's meaning: the last event returned. Where the read stopped, past entries the filter passed over,
      // is `cursor`, so a filter that matches little does not make the next call look at them again. With no event
      // (upstream leaves the field out) it is the cursor: a read is cut at SCAN_BUDGET entries, and a loop that
      // passes last_event_id back, as upstream's clients do, must move on instead of reading the same ones again.
      last_event_id: scan.events.at(-1)?.event_id ?? scan.cursor ?? null,
      cursor: scan.cursor ?? null,
      scanned,
      next_before: backward ? (scan.nextBefore ?? null) : null,
      ...(foreign
        ? {
            warning:
              `after_event "${args.after_event!.slice(0, 64)}" is not an event id of this workspace's log (they look ` +
              'like 1700000000000-0), so the read started at the oldest event kept. Continue with cursor.',
          }
        : {}),
      ...(trimmed !== undefined && !pastEnd
        ? {
            warning: trimmedGapWarning(
              'after_event',
              args.after_event!,
              trimmed,
              'this read went on from the oldest event kept. Continue with cursor.',
            ),
          }
        : {}),
      ...(pastEnd
        ? {
            warning: pastLogEndWarning(
              'after_event',
              args.after_event!,
              'the read started at the oldest event kept. Continue with cursor.',
            ),
          }
        : {}),
    };
  } finally {
    wait?.cancel();
    release?.();
  }
};
