import type { Logger } from 'pino';
import type { Commit, CommitOutcome, Store } from '../store.ts';
import type { StreamEntry } from './redis-replies.ts';
import { readSkipping } from './stream-read.ts';
import { namedOnce } from '../skipped-events.ts';
import { nameWrongType } from './wrong-type.ts';
import { loadCollections, loadWithScript, type RedisReads } from './redis-load.ts';
import { logConnectionState } from './connection-log.ts';
import { defineStoreCommands } from './commands.ts';
import { clusterResync } from './cluster-resync.ts';
import { createEventFeed } from './event-feed.ts';
import { packCommit, unpackOutcome } from './redis-commit.ts';
import { createRedisLimits } from './redis-limits.ts';
import { createRedisPresence } from '../presence/redis-presence.ts';
import { createRedisRevocations } from '../revocations/revocations.ts';
import { redisKeys } from './redis-keys.ts';
import { storeFailure, unavailable } from './redis-errors.ts';
import { eventsDown } from '../events-down.ts';
import { connectRedis, type RedisTarget } from './connect.ts';
import { createReplicatedCommits } from './replicated-commit.ts';
import { decodeRemembered } from '../request-fingerprint.ts';
import { createOutOfMemoryState, isOutOfMemory } from './out-of-memory.ts';
import { createStoreEpoch } from './store-epoch.ts';
import { createStoredFormat } from './stored-format.ts';
import { watchClusterSilence, watchSilence } from './silent-connection.ts';
import { watchShardSubscriberSilence } from './silent-shard-subscriber.ts';
import { endBefore, startAfter } from './stream-range.ts';
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';

export interface RedisStoreOptions {
  /** One Redis by URL, or a Redis Cluster by its seed nodes (`target` wins over `url`, kept for existing callers). */
  target?: RedisTarget;
  url?: string;
  /**
   * Replicas a commit must reach before it is acknowledged (WAIT after the commit script, same round trip); 0 does
   * not wait. Redis replicates asynchronously, so without it a failover may lose acknowledged commits.
   */
  waitReplicas?: number;
  /** Namespace of every key and of the channel, so deployments (or tests) can share one Redis. */
  prefix: string;
  /** Events kept per workspace stream (trimmed back to it once 1 % over; the trimmed events' bytes leave the quota). */
  eventRetention: number;
  /** Stored bytes (documents + events kept) one workspace may hold, checked inside the commit script. */
  workspaceBytes?: number;
  log: Logger;
  /** A command without a reply in this time fails with UNAVAILABLE (a hung Redis must not hang calls). */
  commandTimeoutMs?: number;
  /** How long calls made while the store is still connecting for the first time wait for it. */
  startupWaitMs?: number;
  /** How long a workspace's event channel stays subscribed after its last watcher left (default 10 s). */
  feedLingerMs?: number;
}

/** Resolves true if `promise` settles within `ms`, false otherwise; never rejects. */
const within = (promise: Promise<unknown>, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      () => (clearTimeout(timer), resolve(true)),
      () => (clearTimeout(timer), resolve(false)),
    );
  });

/**
 * The multi-node store (docs/state-model.md): documents are hashes `{v, d}`, each workspace log is a stream, and every
 * commit is one Lua script, so a call costs one round trip to load and one to commit however much is stored.
 * Redis outages are expected: commands fail fast (no offline queue, no resend), every failure becomes
 * UNAVAILABLE, and the connections reconnect by themselves when Redis returns.
 */
export const createRedisStore = (options: RedisStoreOptions): Store => {
  const log = options.log.child({ module: 'redis-store' });
  const keys = redisKeys(options.prefix);
  const connections = connectRedis(options.target ?? { url: options.url ?? 'redis://127.0.0.1:6379' }, {
    commandTimeoutMs: options.commandTimeoutMs ?? 5000,
    connectionName: `planhub:${options.prefix}`,
  });
  const client = defineStoreCommands(connections.commands);
  const replicated = options.waitReplicas
    ? createReplicatedCommits({
        client,
        replicas: options.waitReplicas,
        // Well inside the command timeout, so the call still answers in time.
        waitMs: Math.min(1000, Math.floor((options.commandTimeoutMs ?? 5000) / 2)),
        log,
      })
    : undefined;
  let closing: Promise<void> | undefined;
  const subscriber = connections.subscriber({ connectionName: `planhub-sub:${options.prefix}` });
  const isClosing = () => closing !== undefined;
  logConnectionState(client, log, 'commands', isClosing);
  logConnectionState(subscriber, log, 'subscriber', isClosing);
  // A connection the network dropped without closing it is replaced once its pings go unanswered: the command
  // connection after two (a slow Redis is not cut at its first slow answer), the subscriber, which has nothing else in
  // flight, after one. On a Cluster, ioredis holds one command connection and one subscriber connection per master,
  // each watched alike (the subscriber's below, once the feed exists).
  const silentCommands =
    connections.commands instanceof Cluster
      ? watchClusterSilence(connections.commands, 'commands connection', log, 2)
      : watchSilence(connections.commands, 'commands connection', log, 2);
  // Adopted at the first connection, checked at every reconnect (a restarted Redis may come back empty).
  const epoch = createStoreEpoch({ client, key: keys.epoch, newId: randomUUID, log });
  client.on('ready', () => void epoch.verify().catch(() => undefined));
  const format = createStoredFormat({ client, key: keys.format, log });
  // The first adoption is part of startup: a call that waited for startup is checked against what it found.
  let adoptedFirst: () => void = () => {};
  const adopted = new Promise<void>((resolve) => (adoptedFirst = resolve));
  client.on('ready', () => void format.adopt().then(adoptedFirst, adoptedFirst));

  // A log entry that is not an event is skipped and named once (stream-read.ts says why).
  const skipped = namedOnce(log);
  const readAfter = async (workspace: string, after: string, count: number) => {
    const start = startAfter(after);
    if (start === undefined) return [];
    const stream = keys.events(workspace);
    const page = async (from: string, n: number) =>
      (await client.xrange(stream, from, '+', 'COUNT', n)) as StreamEntry[];
    return readSkipping(stream, start, count, page, startAfter, skipped);
  };
  // Through run(): before the first 'ready' it waits for startup, however long, rather than fail and leave the
  // watcher's next operation to read it again (which is correct, runAfterWatch, but slower and logged as a failure).
  const readLast = (workspace: string) =>
    run(
      'readLast',
      async () => {
        const [newest] = (await client.xrevrange(keys.events(workspace), '+', '-', 'COUNT', 1)) as StreamEntry[];
        return newest?.[0] ?? '0-0';
      },
      { untilStarted: true },
    );
  const feed = createEventFeed({
    subscriber,
    channel: (workspace) => keys.channel(workspace),
    readLast,
    readAfter,
    log,
    readsBackPeriodically: connections.cluster,
    ...(options.feedLingerMs !== undefined ? { lingerMs: options.feedLingerMs } : {}),
  });
  const stopResync = connections.cluster ? clusterResync(subscriber, feed) : () => {};
  const silentSubscriber =
    subscriber instanceof Cluster
      ? watchShardSubscriberSilence(subscriber, {
          name: 'subscriber connection',
          log,
          timeouts: 1,
          onResubscribed: () => feed.resync("a shard's subscriber connection was renewed"),
        })
      : { ...watchSilence(subscriber, 'subscriber connection', log, 1), stop: () => {} };
  const epochInLoad = !connections.cluster;

  let started = false;
  // A node commits only once it listens, so it sees its own events (a waiter set up before a commit relies on it).
  const startup = Promise.all([adopted, feed.subscribed]).then(() => void (started = true));

  /** `untilStarted`: wait for startup however long it takes (other operations give up after startupWaitMs). */
  const run = async <T>(op: string, body: () => Promise<T>, wait: { untilStarted?: boolean } = {}): Promise<T> => {
    if (closing) throw unavailable();
    if (op !== 'ping') epoch.refuseIfLost();
    if (!started && wait.untilStarted) await startup;
    else if (!started && !(await within(startup, options.startupWaitMs ?? 3000))) throw unavailable();
    // Again once started: a call made before the first connection is checked against what that connection found.
    if (op !== 'ping') format.refuseIfNewer();
    try {
      return await body();
    } catch (err) {
      if (isOutOfMemory(err)) memory.refused(op);
      throw storeFailure(err, log, op);
    }
  };
  const memory = createOutOfMemoryState(log);

  /**
   * `run`, for an operation on `workspace` that a watch made before it must follow: whatever the watcher commits or
   * reads afterwards comes after the watch's starting point, or an event committed between the two would be neither
   * read nor delivered. So the operation waits for that point to be read (EventFeed.startRead says why sending it
   * behind the read is not enough), and fails as the read does. Only the first operations after a new watch wait.
   */
  const runAfterWatch = <T>(op: string, workspace: string, body: () => Promise<T>): Promise<T> =>
    run(op, () => {
      const started = feed.startRead(workspace);
      return started ? started.then(body) : body();
    });
  const reads: RedisReads = { client, keys, epoch, epochInLoad };

  const store: Store = {
    kind: 'redis',
    limits: createRedisLimits(client, options.prefix),
    presence: createRedisPresence(client, options.prefix),
    revocations: ({ checkMs, log }) => createRedisRevocations({ redis: client, prefix: options.prefix, checkMs, log }),
    load: async (workspace, docKeys) =>
      docKeys.length === 0 ? [] : (await store.loadWith(workspace, docKeys, {})).docs,

    loadWith: (workspace, docKeys, alongside) =>
      runAfterWatch('load', workspace, () => loadWithScript(reads, workspace, docKeys, alongside)),

    loadCollections: (workspace, read) =>
      runAfterWatch('loadCollections', workspace, () => loadCollections(reads, workspace, read)),

    commit: (workspace, commit: Commit) =>
      runAfterWatch('commit', workspace, async (): Promise<CommitOutcome> => {
        const packed = packCommit(keys, workspace, commit, {
          retention: options.eventRetention,
          ...(options.workspaceBytes !== undefined ? { quota: options.workspaceBytes } : {}),
        });
        const reply = await (
          replicated
            ? replicated.commit(workspace, packed)
            : client.phCommit(packed.keys.length, ...packed.keys, ...packed.args)
        ).catch(async (err: unknown) => {
          throw await nameWrongType(err, client, packed.keys);
        });
        return unpackOutcome(commit, reply);
      }),

    requestAnswer: (workspace, agentId, requestId) =>
      run('requestAnswer', async () => {
        // An answer missing from a wiped store must not let the request run again as new work.
        const [json] = await Promise.all([client.get(keys.request(workspace, agentId, requestId)), epoch.verify()]);
        return json === null ? undefined : decodeRemembered(json, { agent_id: agentId, request_id: requestId });
      }),

    readEvents: (workspace, range) =>
      runAfterWatch('readEvents', workspace, async () => {
        const read = async () => {
          if (range.after !== undefined) return readAfter(workspace, range.after, range.count);
          const end = range.before === undefined ? '+' : endBefore(range.before);
          if (end === undefined) return [];
          const stream = keys.events(workspace);
          const page = async (from: string, n: number) =>
            (await client.xrevrange(stream, from, '-', 'COUNT', n)) as StreamEntry[];
          return (await readSkipping(stream, end, range.count, page, endBefore, skipped)).reverse();
        };
        // A wiped log reads as "no events": only the epoch tells the two apart.
        const [events] = await Promise.all([read(), epoch.verify()]);
        return events;
      }),

    watch: (workspace, listener) => feed.watch(workspace, listener),

    ping: () =>
      run('ping', async () => {
        // The epoch rides on the monitor's and /readyz's pings; a loss is reported by dataLoss(), not as an outage.
        const [commands, subscription] = await Promise.allSettled([
          Promise.all([
            silentCommands.ping(),
            epoch.verify().catch((err: unknown) => {
              if (!epoch.lost()) throw err;
            }),
            format.check(),
          ]),
          // A subscriber that knows it is down is reconnecting already (and fails the check below).
          feed.live() ? silentSubscriber.ping() : undefined,
        ]);
        if (commands.status === 'rejected') throw commands.reason;
        // Calls work: the outage is only the events', and /readyz and the monitor say so in those words.
        if (subscription.status === 'rejected' || !feed.live()) throw eventsDown();
      }),

    trimmedThrough: (workspace) =>
      run('trimmedThrough', async () => (await client.get(keys.trimmed(workspace))) ?? undefined),

    dataLoss: () => epoch.lost(),
    formatConflict: () => format.conflict(),

    writeHealth: async () => {
      // Read on every probe, not only once a write was refused: a node whose agents only read (or that has none)
      // must turn unready with the others when Redis fills up. Not a small write as a probe: it passes as soon as a
      // refused call's own buffers are freed, while the next call of the same size is refused again. Recovered means
      // room again (see out-of-memory.ts).
      await run('memoryInfo', () => client.info('memory')).then(
        (info) => memory.check(info),
        () => undefined,
      );
      const since = memory.since();
      return since === undefined ? { ok: true } : { ok: false, reason: 'out_of_memory', since };
    },

    close: () =>
      (closing ??= (async () => {
        stopResync();
        silentSubscriber.stop();
        feed.close();
        // quit() lets in-flight replies arrive; during an outage it fails at once and disconnect() ends the retries.
        await Promise.allSettled([client.quit(), subscriber.quit()]);
        client.disconnect();
        subscriber.disconnect();
      })()),
  };
  return store;
};
