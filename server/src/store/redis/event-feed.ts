import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EventListener } from '../store.ts';

export interface EventFeedOptions {
  /** A connection of its own (pub/sub mode blocks other commands), with ioredis' autoResubscribe off. */
  subscriber: Redis;
  channel: string;
  /** Events of a workspace log after `after` (exclusive), oldest first. */
  readAfter(workspace: string, after: string, count: number): Promise<EventEnvelope[]>;
  log: Logger;
}

export interface EventFeed {
  on(listener: EventListener): () => void;
  /** Resolves when the first subscription is live; never rejects. */
  readonly subscribed: Promise<void>;
  /** True while the subscription is live. */
  live(): boolean;
  close(): void;
}

const RECOVERY_BATCH = 1000;

/** Unref'd: a pending retry never keeps the process alive, and a closed feed just stops at its next turn. */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** What commit.lua publishes: `[workspace, stream id, envelope JSON without event_id]`. */
export const decodeMessage = (message: string): { workspace: string; event: EventEnvelope } => {
  const [workspace, id, json] = JSON.parse(message) as [string, string, string];
  return { workspace, event: { event_id: id, ...(JSON.parse(json) as Omit<EventEnvelope, 'event_id'>) } };
};

/**
 * Pushes every published event to the listeners, in log order per workspace, exactly once. Pub/sub loses what is
 * published while the subscriber is disconnected, so after a reconnect each workspace seen so far is read back
 * from its stream after the last id delivered; live messages of that workspace wait in a buffer meanwhile, and ids
 * at or below the last delivered one are dropped, so the overlap between the two is neither lost nor repeated.
 */
export const createEventFeed = (options: EventFeedOptions): EventFeed => {
  const { subscriber, channel } = options;
  const log = options.log.child({ part: 'event-feed' });
  const listeners = new Set<EventListener>();
  const lastIds = new Map<string, string>();
  /** Workspaces being read back after a reconnect, with the live events that arrived meanwhile. */
  const recovering = new Map<string, EventEnvelope[]>();
  const running = new Set<string>();
  /** Successful SUBSCRIBEs so far; a recovery repeats if one happened while it read. */
  let subscriptions = 0;
  let isLive = false;
  let closed = false;
  let markSubscribed: () => void = () => {};
  const subscribed = new Promise<void>((resolve) => (markSubscribed = resolve));

  const deliver = (workspace: string, event: EventEnvelope) => {
    const last = lastIds.get(workspace);
    if (last !== undefined && compareEventIds(event.event_id, last) <= 0) return;
    lastIds.set(workspace, event.event_id);
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (err) {
        log.error({ err, event_id: event.event_id }, 'event listener failed');
      }
    }
  };

  /** Reads a workspace's stream after its last delivered id until nothing is missing, then drains its buffer. */
  const recover = async (workspace: string): Promise<void> => {
    for (let attempt = 0; !closed;) {
      const generation = subscriptions;
      try {
        for (;;) {
          const after = lastIds.get(workspace);
          if (after === undefined) break;
          const batch = await options.readAfter(workspace, after, RECOVERY_BATCH);
          for (const event of batch) deliver(workspace, event);
          if (batch.length < RECOVERY_BATCH) break;
        }
        // A read that began before the newest subscription went live may have missed what came in between.
        if (generation === subscriptions) break;
      } catch (err) {
        // The command connection may still be down although the subscriber is back: keep buffering, try again.
        log.warn({ workspace, reason: err instanceof Error ? err.message : String(err) }, 'event recovery failed');
        await pause(Math.min(2000, 100 * 2 ** attempt++));
      }
    }
    const buffered = recovering.get(workspace) ?? [];
    recovering.delete(workspace);
    for (const event of buffered) deliver(workspace, event);
  };

  const startRecovery = (workspace: string) => {
    if (running.has(workspace)) return;
    running.add(workspace);
    void recover(workspace).finally(() => running.delete(workspace));
  };

  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel || closed) return;
    let decoded: ReturnType<typeof decodeMessage>;
    try {
      decoded = decodeMessage(message);
    } catch (err) {
      log.error({ err }, 'unreadable event message');
      return;
    }
    const buffer = recovering.get(decoded.workspace);
    if (buffer) buffer.push(decoded.event);
    else deliver(decoded.workspace, decoded.event);
  });

  subscriber.on('ready', () => {
    // Mark the gaps before subscribing: a live message may arrive before the SUBSCRIBE reply's continuation runs.
    if (subscriptions > 0)
      for (const workspace of lastIds.keys()) if (!recovering.has(workspace)) recovering.set(workspace, []);
    subscriber.subscribe(channel).then(
      () => {
        subscriptions += 1;
        isLive = true;
        markSubscribed();
        if (recovering.size > 0)
          log.info({ workspaces: recovering.size }, 'event subscription restored; reading back the gap');
        // Only now: the subscription is live, so whatever the stream read misses arrives as a live message.
        for (const workspace of recovering.keys()) startRecovery(workspace);
      },
      // The connection dropped again; the next 'ready' subscribes anew and the gaps stay marked.
      (err: unknown) => log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'subscribe failed'),
    );
  });
  subscriber.on('close', () => {
    isLive = false;
  });

  return {
    subscribed,
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    live: () => isLive,
    close() {
      closed = true;
      listeners.clear();
      recovering.clear();
    },
  };
};
