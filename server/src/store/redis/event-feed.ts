import type { EventEnvelope } from '@planhub/shared';
import type { Logger } from 'pino';
import type { EventListener } from '../store.ts';
import { decodeMessage } from './feed-message.ts';
import {
  deliver,
  followWorkspace,
  keepHeldAfterLast,
  readStartPoint,
  receiveLive,
  releaseHeld,
  type FollowedWorkspace,
} from './followed-workspace.ts';

/**
 * What the feed needs of its subscriber connection. ioredis' `Redis` and `Cluster` both have it, so the store may
 * hand either; the connection must not resubscribe by itself in a way that hides a reconnect (autoResubscribe off).
 */
export interface FeedConnection {
  ssubscribe(...channels: string[]): Promise<unknown>;
  sunsubscribe(...channels: string[]): Promise<unknown>;
  on(event: 'smessage', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready' | 'close', listener: () => void): unknown;
}

export interface EventFeedOptions {
  subscriber: FeedConnection;
  /** The sharded channel a workspace's events are published on (in the workspace's hash tag). */
  channel(workspace: string): string;
  /** The newest event id of a workspace log, `0-0` when it is empty: where a newly followed workspace starts. */
  readLast(workspace: string): Promise<string>;
  /** Events of a workspace log after `after` (exclusive), oldest first. */
  readAfter(workspace: string, after: string, count: number): Promise<EventEnvelope[]>;
  log: Logger;
  /** How long a workspace stays subscribed after its last listener left (a wait that comes and goes). */
  lingerMs?: number;
  /**
   * Every followed log is read back every 2 s regardless (a Redis Cluster, cluster-resync.ts): a subscription that
   * keeps failing then only makes its events up to 2 s late, and does not count as events down.
   */
  readsBackPeriodically?: boolean;
}

export interface EventFeed {
  /** Pushes the workspace's events committed from now on (by any node) to `listener`, in log order, once each. */
  watch(workspace: string, listener: EventListener): () => void;
  /** Resolves when the subscriber connection is first ready; never rejects. */
  readonly subscribed: Promise<void>;
  /**
   * True while the subscriber connection is up and no followed workspace's subscription keeps failing (its events
   * would then reach this node's watchers late, or on one Redis not at all).
   */
  live(): boolean;
  /** Reads back every followed workspace: for any sign that published messages may have been lost. */
  resync(reason: string, options?: { quiet?: boolean }): void;
  /**
   * Settles once the starting point of the workspace's newest watch is read (made again if an earlier read failed,
   * and rejected if this one fails); undefined when it is known. Every read and commit for a watcher waits for it:
   * what the watcher does next must come after that point. Sending behind the read on the same connection is not
   * enough: the read may time out or its connection drop while what was sent behind it still lands, and on a Redis
   * Cluster two commands sent in a row can reach their node in the other order (ioredis retries a command sent while
   * a node connection is being made 100 ms later, through a random node).
   */
  startRead(workspace: string): Promise<string> | undefined;
  /** How many workspaces this node follows. */
  following(): number;
  close(): void;
}

const READ_BATCH = 1000;
const DEFAULT_LINGER_MS = 10_000;
/**
 * Failed SSUBSCRIBEs in a row, with the connection up, after which a workspace's subscription counts as failing (about
 * 1.5 s of retries): one failure is a slot moving or a node failing over, three in a row something that stays
 * broken (in a cluster review, "No sharded subscriber for slot …" every 2 s for 13 minutes with /readyz at 200).
 */
const FAILING_AFTER = 3;

/** Unref'd: a pending retry never keeps the process alive, and a closed feed just stops at its next turn. */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Delivers the events of the workspaces this node's clients watch, and only those: each workspace has its own
 * sharded channel, subscribed while it has a listener here, so a node's cost follows its own clients.
 *
 * Gap-free by construction. Each followed workspace has a starting point (the log's newest id, read when it was first
 * watched; the watcher's reads and commits wait for it) and the last id delivered since. Whenever a message may
 * have been lost — the workspace was just subscribed, the subscriber reconnected (a drop, `CLIENT KILL`, Redis
 * cutting it at its output-buffer limit), or a message names a predecessor other than the last id delivered — the
 * workspace's log is read back from its last id while live messages wait; ids at or below the last delivered one
 * are dropped, so the overlap between the two is neither lost nor repeated.
 */
export const createEventFeed = (options: EventFeedOptions): EventFeed => {
  const { subscriber } = options;
  const log = options.log.child({ part: 'event-feed' });
  const lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
  const follows = new Map<string, FollowedWorkspace>();
  /** Counts the subscriber's 'ready's: a subscription of an older generation died with its connection. */
  let generation = 0;
  let connected = false;
  let closed = false;
  /** Workspaces whose subscription failed FAILING_AFTER times in a row and has not succeeded since. */
  const failing = new Set<string>();
  let markSubscribed: () => void = () => {};
  const subscribed = new Promise<void>((resolve) => (markSubscribed = resolve));
  const current = (workspace: string, follow: FollowedWorkspace) => !closed && follows.get(workspace) === follow;

  /**
   * Reads the log after the last delivered id until nothing is missing, then delivers what was held. What the log
   * holds is delivered even while the subscription is not confirmed (a periodic read-back on a Cluster then still
   * brings every event); live delivery resumes only once it is, and a subscription not on its way is sent again.
   */
  const catchUp = async (workspace: string, follow: FollowedWorkspace): Promise<void> => {
    if (follow.running) return void (follow.again = true);
    follow.running = true;
    try {
      for (let attempt = 0; current(workspace, follow);) {
        const readIn = generation;
        follow.again = false;
        try {
          follow.last ??= await startOf(workspace, follow);
          let read = 0;
          for (;;) {
            const batch = await options.readAfter(workspace, follow.last, READ_BATCH);
            for (const event of batch) deliver(follow, event, log);
            read += batch.length;
            if (batch.length < READ_BATCH || !current(workspace, follow)) break;
          }
          if (read > 0) log.info({ workspace, events: read }, 'events read back from the log');
          // A read that began before the newest subscription went live may have missed what came in between.
          if (readIn !== generation || follow.again) continue;
          if (follow.subscribedIn !== generation) {
            // Its confirmation reads back again; until then only what is newer than the log read stays held.
            keepHeldAfterLast(follow);
            subscribe(workspace, follow);
            return;
          }
          releaseHeld(follow, log);
          return;
        } catch (err) {
          // The command connection may be down while the subscriber is back: keep holding, try again.
          log.warn({ workspace, reason: reason(err) }, 'event read-back failed');
          await pause(Math.min(2000, 100 * 2 ** attempt++));
        }
      }
    } finally {
      follow.running = false;
    }
  };

  /** Subscribes the workspace's channel in the current generation, once: a second call while one is on its way waits. */
  const subscribe = (workspace: string, follow: FollowedWorkspace, attempt = 0) => {
    if (!connected) return; // the next 'ready' subscribes every followed workspace
    const subscribedOn = generation;
    if (attempt === 0 && follow.subscribingIn === subscribedOn) return;
    follow.subscribingIn = subscribedOn;
    const settled = () => {
      if (follow.subscribingIn === subscribedOn) follow.subscribingIn = -1;
    };
    subscriber.ssubscribe(follow.channel).then(
      () => {
        settled();
        failing.delete(workspace);
        if (!current(workspace, follow) || subscribedOn !== generation) return;
        follow.subscribedIn = subscribedOn;
        void catchUp(workspace, follow);
      },
      async (err: unknown) => {
        log.warn({ workspace, reason: reason(err) }, 'event subscription failed');
        // A workspace no longer followed (its last watcher left while this attempt was on its way) is not failing:
        // counted, it would keep /readyz at 503 with nothing left to retry it.
        // On a Cluster the periodic read-back delivers the workspace's events anyway, at most 2 s late: counted, one
        // shard's dead subscriber connection (which every retry reuses) kept every node at 503 while calls worked.
        const still = current(workspace, follow) && options.readsBackPeriodically !== true;
        if (still && attempt + 1 >= FAILING_AFTER && !failing.has(workspace)) {
          failing.add(workspace);
          log.error(
            { workspace, attempts: attempt + 1, reason: reason(err) },
            "event subscription keeps failing while the connection is up: this node hears other nodes' events " +
              'of the workspace late, and /readyz says store_events_down until it succeeds',
          );
        }
        // Meanwhile every retry reads the log back, as the periodic read-back on a Cluster does, so the workspace's
        // watchers get its events late rather than never (one Redis has no periodic read-back).
        if (still && failing.has(workspace)) void catchUp(workspace, follow);
        await pause(Math.min(2000, 100 * 2 ** attempt));
        if (current(workspace, follow) && subscribedOn === generation && connected)
          subscribe(workspace, follow, attempt + 1);
        else settled();
      },
    );
  };

  const unfollow = (workspace: string, follow: FollowedWorkspace) => {
    if (!current(workspace, follow)) return;
    follows.delete(workspace);
    failing.delete(workspace);
    if (connected)
      subscriber
        .sunsubscribe(follow.channel)
        .catch((err: unknown) => log.debug({ workspace, reason: reason(err) }, 'event unsubscribe failed'));
  };

  const startOf = (workspace: string, follow: FollowedWorkspace) =>
    readStartPoint(
      follow,
      () => options.readLast(workspace),
      (err) => log.warn({ workspace, reason: reason(err) }, 'could not read where the event log ends'),
    );

  const follow = (workspace: string): FollowedWorkspace => {
    const created = followWorkspace(options.channel(workspace));
    follows.set(workspace, created);
    // Read now: a watcher's next read or commit waits for it. A failure is logged and made again on demand.
    startOf(workspace, created).catch(() => undefined);
    subscribe(workspace, created);
    return created;
  };

  subscriber.on('smessage', (channel: string, message: string) => {
    if (closed) return;
    let decoded: ReturnType<typeof decodeMessage>;
    try {
      decoded = decodeMessage(message);
    } catch (err) {
      log.error({ err, channel }, 'unreadable event message');
      return;
    }
    const { workspace, event, previous } = decoded;
    const follow = follows.get(workspace);
    if (!follow || follow.channel !== channel) return;
    const expected = follow.last;
    if (receiveLive(follow, event, previous, log) !== 'gap') return;
    log.warn({ workspace, expected, previous, event_id: event.event_id }, 'event gap detected; reading back');
    void catchUp(workspace, follow);
  });

  subscriber.on('ready', () => {
    generation += 1;
    connected = true;
    markSubscribed();
    if (generation > 1 && follows.size > 0)
      log.info({ workspaces: follows.size }, 'event subscription restored; reading back the gap');
    // Hold before subscribing: a live message may arrive before the SSUBSCRIBE reply's continuation runs.
    for (const [workspace, follow] of follows) {
      follow.held ??= [];
      subscribe(workspace, follow);
    }
  });
  subscriber.on('close', () => {
    connected = false;
  });

  return {
    subscribed,
    watch(workspace, listener) {
      if (closed) return () => {};
      const entry = follows.get(workspace) ?? follow(workspace);
      clearTimeout(entry.linger);
      entry.linger = undefined;
      entry.listeners.add(listener);
      let attached = true;
      return () => {
        if (!attached) return;
        attached = false;
        entry.listeners.delete(listener);
        if (entry.listeners.size > 0 || !current(workspace, entry)) return;
        clearTimeout(entry.linger);
        entry.linger = setTimeout(() => {
          if (entry.listeners.size === 0) unfollow(workspace, entry);
        }, lingerMs).unref();
      };
    },
    live: () => connected && failing.size === 0,
    resync(why, { quiet = false } = {}) {
      if (follows.size > 0 && !quiet)
        log.info({ workspaces: follows.size, reason: why }, 'reading back every followed log');
      for (const [workspace, follow] of follows) {
        // A read-back already running covers this one (it reads to the end of the log).
        if (quiet && follow.running) continue;
        follow.held ??= [];
        void catchUp(workspace, follow);
      }
    },
    startRead(workspace) {
      const follow = follows.get(workspace);
      return follow && follow.startPoint === undefined ? startOf(workspace, follow) : undefined;
    },
    following: () => follows.size,
    close() {
      closed = true;
      for (const follow of follows.values()) clearTimeout(follow.linger);
      follows.clear();
    },
  };
};
