import type { Caller, EventEnvelope, Subscription } from '@planhub/shared';
import { eventsThatFit } from '../events/answer-bytes.ts';
import { LOG_START, isPastLogEnd, pastLogEndWarning } from '../events/past-log-end.ts';
import { trimmedAfter, trimmedGapWarning } from '../events/trimmed-gap.ts';
import { scanForward, scanWork, type Scan } from '../events/scan-log.ts';
import { chargeWork } from '../limits/call-limiter.ts';
import type { Services } from '../tools/context.ts';
import { readSubscriptions } from '../tools/subscriptions-doc.ts';
import type { SessionCursor } from './session-cursor.ts';
import { sessionMatcher } from './session-events.ts';
import type { SubscriptionChanges } from './subscription-changes.ts';
import type { WaitForEventsArgs } from './wait-for-events-tool.ts';

export interface WaitForEventsResult {
  events: EventEnvelope[];
  count: number;
  last_event_id: string;
  message: string;
  [key: string]: unknown;
}

/**
 * Scans of at most the log's retention each, while nothing is found: on Redis the log may hold a little more than
 * its retention (it is trimmed approximately), so one scan can stop short of the newest event.
 */
const MAX_SCANS = 3;
/** Rescans after the agent's subscriptions changed during one call; past that the call answers what it has. */
const MAX_RESCANS = 3;

const messageOf = (found: Scan, timeout: number, subscriptions: number): string => {
  const count = found.events.length;
  if (count > 0) return `${count} new events, oldest first. Call waitForEvents again for the next ones.`;
  if (!found.complete)
    return `Looked at ${found.scanned} events, none of them for you. Call waitForEvents again to look further.`;
  if (subscriptions === 0)
    return (
      `Nothing in ${timeout} s, and you have no subscriptions: only decisions on your own plans can arrive. ` +
      'Subscribe with subscribeToTasks (e.g. event_types ["step_unblocked", "step_completed"]) first.'
    );
  return `No new event in ${timeout} s. Call waitForEvents again to keep waiting.`;
};

/**
 * The answer of a wait whose deadline came while another wait of its session still held the cursor (wait-queue.ts):
 * it read nothing and moved nothing, so the model continues from where it was.
 */
export const queuedPastDeadline = (cursor: SessionCursor, args: WaitForEventsArgs): WaitForEventsResult => ({
  events: [],
  count: 0,
  last_event_id: args.after_event ?? cursor.position,
  message:
    `No new event for this call in ${args.timeout} s: another waitForEvents call of this session was waiting all ` +
    'that time, and events go to one call at a time. Call waitForEvents again (one call at a time) to keep waiting.',
});

/**
 * Charges the log entries this call looked at, and the text parsed for them, to the agent's call budget, as
 * getTaskEvents' scans are (scanWork), once the answer is made.
 */
const chargeScan = (services: Services, caller: Caller, work: { scanned: number; bytes: number }): Promise<void> =>
  chargeWork(services.callLimiter, caller, scanWork(work));

const sameSubscriptions = (a: readonly Subscription[], b: readonly Subscription[]): boolean =>
  a.length === b.length && a.every((sub, i) => sub.subscription_id === b[i]?.subscription_id);

/**
 * The agent's next events after the session's cursor, from the workspace's event log (so events committed on any
 * node count). With none there yet it waits until `deadline` (`timeout` seconds after the call arrived) for one
 * from the hub; listening starts before the read, so an event committed in between wakes the wait instead of being
 * missed.
 *
 * Which events are the agent's depends on its subscriptions, which another call may change meanwhile. Before the
 * cursor moves they are read again, and if they changed the log is scanned again from where this call started:
 * otherwise an event that only a new subscription matches would be passed over for good. A change made by a call
 * of the same session also wakes the wait at once.
 */
export const waitForEvents = async (
  services: Services,
  caller: Caller,
  cursor: SessionCursor,
  args: WaitForEventsArgs,
  signal: AbortSignal,
  changes: SubscriptionChanges,
  // A performance.now() time: when the call arrived plus its timeout, so time spent queued counts (wait-queue.ts).
  deadline = performance.now() + args.timeout * 1000,
): Promise<WaitForEventsResult> => {
  const { store, hub, config } = services;
  const readMine = () => readSubscriptions(store, caller.workspace, caller.agent_id);
  let subscriptions = await readMine();
  if (args.after_event !== undefined) cursor.moveTo(args.after_event);
  const from = cursor.position;
  // Whether the log trimmed events after the cursor (a session that fell behind, an old after_event): asked once,
  // beside the first scan.
  const gap = trimmedAfter(store, caller.workspace, from);
  gap.catch(() => undefined);
  // Where this call reads from: the session's cursor, or the oldest kept event once that lies past the log's end.
  let start = from;
  let checked = from === LOG_START;
  let after = from;
  const work = { scanned: 0, bytes: 0 };
  for (let rescans = 0; ;) {
    const match = sessionMatcher(caller, subscriptions);
    const scan = async (start: string): Promise<Scan> => {
      let found = await scanForward(store, caller.workspace, start, args.limit, match, config.eventRetention);
      for (let scans = 1; found.events.length === 0 && !found.complete && scans < MAX_SCANS; scans++) {
        const next = await scanForward(
          store,
          caller.workspace,
          found.cursor ?? start,
          args.limit,
          match,
          config.eventRetention,
        );
        found = { ...next, scanned: found.scanned + next.scanned, bytes: found.bytes + next.bytes };
      }
      work.scanned += found.scanned;
      work.bytes += found.bytes;
      return found;
    };
    const left = deadline - performance.now();
    const change = changes.next();
    const wait = left > 0 ? hub.waitFor(caller.workspace, match, { timeoutMs: left, signal }) : undefined;
    let found: Scan;
    let changed = false;
    try {
      found = await scan(after);
      // Nothing at all after the session's cursor: it may lie past the log's end (a reset log, or an after_event
      // from elsewhere), and a wait after it would never return an event. Asked once per call, and only then.
      if (!checked) {
        checked = true;
        if (found.scanned === 0 && (await isPastLogEnd(store, caller.workspace, after))) {
          start = after = LOG_START;
          found = await scan(after);
        }
      }
      if (found.events.length === 0 && found.complete && wait) {
        const woke = await Promise.race([wait.promise, change.changed.then(() => 'changed' as const)]);
        changed = woke === 'changed';
        if (woke !== undefined && !changed) found = await scan(found.cursor ?? after);
      }
    } finally {
      wait?.cancel();
      change.cancel();
    }
    const now = await readMine();
    if (!sameSubscriptions(now, subscriptions)) {
      if (rescans++ < MAX_RESCANS) {
        subscriptions = now;
        after = start;
        continue;
      }
      // Still changing: answer nothing and keep the cursor, rather than pass over what the new ones match.
      await chargeScan(services, caller, work);
      return {
        events: [],
        count: 0,
        last_event_id: from,
        message: 'Your subscriptions kept changing while this call waited. Call waitForEvents again.',
      };
    }
    // Woken by a change that left the same subscriptions (an identical filter): wait on for the time left.
    if (changed && found.events.length === 0 && deadline > performance.now()) {
      after = found.cursor ?? after;
      continue;
    }
    // Within ANSWER_EVENT_BYTES: the rest comes from the next call, the cursor stopping at the last event kept.
    const fit = eventsThatFit(found.events, 'oldest');
    if (fit < found.events.length)
      found = { ...found, events: found.events.slice(0, fit), cursor: found.events[fit - 1]?.event_id };
    const to = found.cursor ?? after;
    const trimmed = await gap;
    // Charged before the cursor moves: a charge that fails (the limiter's store down) fails the call with the cursor
    // where it was, so no event is passed over.
    await chargeScan(services, caller, work);
    // A call its host cancelled gets no answer: moving the cursor would pass over events nobody receives.
    signal.throwIfAborted();
    cursor.advance(from, to);
    return {
      events: found.events,
      count: found.events.length,
      last_event_id: to,
      message: messageOf(found, args.timeout, subscriptions.length),
      ...(trimmed !== undefined && start === from
        ? {
            warning: trimmedGapWarning(
              args.after_event !== undefined ? 'after_event' : "The session's cursor",
              from,
              trimmed,
              'this read went on from the oldest event kept.',
            ),
          }
        : {}),
      ...(start !== from
        ? {
            warning: pastLogEndWarning(
              args.after_event !== undefined ? 'after_event' : "The session's cursor",
              from,
              'this read started at the oldest event kept. Call waitForEvents again without after_event to go on.',
            ),
          }
        : {}),
    };
  }
};
