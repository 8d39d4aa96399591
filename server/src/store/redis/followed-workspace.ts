import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import type { Logger } from 'pino';
import type { EventListener } from '../store.ts';

/**
 * One workspace the event feed follows: who listens here, how far its log was delivered, and the live messages held
 * while the log is read back. The functions below keep its one promise: each event reaches the listeners once, in
 * log order. When to read back and when to subscribe is the feed's (event-feed.ts).
 */
export interface FollowedWorkspace {
  readonly channel: string;
  readonly listeners: Set<EventListener>;
  /** The newest id delivered; undefined until the starting point is known. */
  last: string | undefined;
  /**
   * The starting point: the log's newest id, read the moment the workspace was first watched; undefined until a read
   * of it succeeded. Until then every operation of a watcher waits for it (EventFeed.startRead).
   */
  startPoint: string | undefined;
  /** The read of the starting point in flight, shared by everyone waiting for it. */
  startReading: Promise<string> | undefined;
  /** Live messages held while the log is read back; undefined once live. */
  held: EventEnvelope[] | undefined;
  /** The connection generation whose SSUBSCRIBE was confirmed; only then can a read-back end. */
  subscribedIn: number;
  /** The generation whose SSUBSCRIBE is on its way (-1: none), so a read-back does not send a second one. */
  subscribingIn: number;
  running: boolean;
  /** Asked to read back again while a read-back was running. */
  again: boolean;
  linger: NodeJS.Timeout | undefined;
}

/** A workspace followed from its starting point, holding live messages until read back. */
export const followWorkspace = (channel: string): FollowedWorkspace => ({
  channel,
  listeners: new Set(),
  last: undefined,
  startPoint: undefined,
  startReading: undefined,
  held: [],
  subscribedIn: -1,
  subscribingIn: -1,
  running: false,
  again: false,
  linger: undefined,
});

/**
 * The starting point, read once; a failed read is made again by the next one to need it. That is safe only because
 * nothing of a watcher goes out before a read succeeded: an earlier commit landing behind a read that then failed
 * (a timeout, a dropped connection) would fall before a later starting point and never be delivered.
 */
export const readStartPoint = (
  followed: FollowedWorkspace,
  readLast: () => Promise<string>,
  failed: (err: unknown) => void,
): Promise<string> => {
  if (followed.startPoint !== undefined) return Promise.resolve(followed.startPoint);
  const reading = (followed.startReading ??= readLast().then(
    (last) => {
      followed.startPoint = last;
      followed.startReading = undefined;
      return last;
    },
    (err: unknown) => {
      followed.startReading = undefined;
      failed(err);
      throw err;
    },
  ));
  return reading;
};

/** Hands `event` to every listener unless it is at or before the last id delivered. */
export const deliver = (followed: FollowedWorkspace, event: EventEnvelope, log: Logger): void => {
  if (followed.last !== undefined && compareEventIds(event.event_id, followed.last) <= 0) return;
  followed.last = event.event_id;
  for (const listener of [...followed.listeners]) {
    try {
      listener(event);
    } catch (err) {
      log.error({ err, event_id: event.event_id }, 'event listener failed');
    }
  }
};

/**
 * A live message: held while the log is read back, dropped when already delivered, delivered when it follows the
 * last one. Answers 'gap' (and holds it) when it names a predecessor other than the last delivered: a message was
 * lost, and the caller reads the log back.
 */
export const receiveLive = (
  followed: FollowedWorkspace,
  event: EventEnvelope,
  previous: string | undefined,
  log: Logger,
): 'gap' | undefined => {
  if (followed.held) return void followed.held.push(event);
  const last = followed.last;
  if (last === undefined || compareEventIds(event.event_id, last) <= 0) return undefined;
  if (previous !== undefined && previous !== last) {
    followed.held = [event];
    return 'gap';
  }
  deliver(followed, event, log);
  return undefined;
};

/** After a complete read-back: delivers what was held meanwhile and goes live. */
export const releaseHeld = (followed: FollowedWorkspace, log: Logger): void => {
  const held = followed.held ?? [];
  followed.held = undefined;
  for (const event of held) deliver(followed, event, log);
};

/** After a read-back that cannot go live yet: keeps held only what the log read did not reach. */
export const keepHeldAfterLast = (followed: FollowedWorkspace): void => {
  const last = followed.last;
  if (last === undefined) return;
  followed.held = followed.held?.filter((event) => compareEventIds(event.event_id, last) > 0);
};
