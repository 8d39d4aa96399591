import type { EventEnvelope, NewEvent } from '@planhub/shared';
import type { Store } from '@planhub/server';
import { createLogger, createRedisStore } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { createEventFeed } from '../../server/src/store/redis/event-feed.ts';
import { redisKeys } from '../../server/src/store/redis/redis-keys.ts';
import type { StreamEntry } from '../../server/src/store/redis/redis-replies.ts';
import { envelopeOf } from '../../server/src/store/redis/stream-read.ts';

const event = (workspace: string, n: number): NewEvent => ({
  event_type: 'step_completed',
  timestamp: '2025-01-01T00:00:00.000Z',
  workspace,
  source_agent: 'agent-1',
  source_plan_id: null,
  source_plan_title: null,
  source_step_id: `step_${n}`,
  source_step_description: null,
  source_step_sequence: n,
  payload: { n },
});

/** The Redis store's event feed: one sharded channel per workspace, subscribed while watched, and no gap. */
describe('the Redis event feed', () => {
  let prefix: string;
  let admin: Redis;
  const stores: Store[] = [];
  const open = () => {
    const store = createRedisStore({
      url: inject('redisUrl'),
      prefix,
      eventRetention: 1000,
      log: createLogger('silent'),
      feedLingerMs: 0,
    });
    stores.push(store);
    return store;
  };
  const append = async (store: Store, workspace: string, n: number) => {
    const outcome = await store.commit(workspace, { reads: [], writes: [], events: [event(workspace, n)] });
    if (!outcome.ok) throw new Error('append conflicted');
    return outcome.events;
  };
  const collect = (store: Store, workspace: string) => {
    const seen: EventEnvelope[] = [];
    const off = store.watch(workspace, (e) => seen.push(e));
    return { seen, off };
  };
  const shardChannels = async () => ((await admin.pubsub('SHARDCHANNELS', `${prefix}:*`)) as string[]).sort();
  beforeEach(() => {
    prefix = uniquePrefix();
    admin = new Redis(inject('redisUrl'));
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    admin.disconnect();
    await deletePrefix(inject('redisUrl'), prefix);
  });

  it('subscribes to a workspace only while it is watched, on a channel in its hash tag', async () => {
    const store = open();
    await store.ping();
    expect(await shardChannels()).toEqual([]);
    const a = collect(store, 'ws-a');
    const b = collect(store, 'ws-b');
    await eventually(async () =>
      expect(await shardChannels()).toEqual([`${prefix}:{ws-a}:feed`, `${prefix}:{ws-b}:feed`]),
    );
    a.off();
    await eventually(async () => expect(await shardChannels()).toEqual([`${prefix}:{ws-b}:feed`]));
    // A workspace nobody watches here is not delivered here, and costs nothing.
    await append(store, 'ws-a', 1);
    const [mine] = await append(store, 'ws-b', 2);
    await eventually(() => expect(b.seen).toEqual([mine]));
    expect(a.seen).toEqual([]);
  });

  it('delivers what a new workspace commits while the subscriber is down, before it delivered anything of it', async () => {
    const listener = open();
    const writer = open();
    await Promise.all([listener.ping(), writer.ping()]);
    const { seen } = collect(listener, 'fresh');
    await eventually(async () => expect(await shardChannels()).toHaveLength(1));
    await admin.client('KILL', 'TYPE', 'pubsub');
    const committed: EventEnvelope[] = [];
    for (let n = 1; n <= 5; n++) committed.push(...(await append(writer, 'fresh', n)));
    await eventually(() => expect(seen).toEqual(committed));
  });

  it('reads back a message lost without a reconnect when the next one names another predecessor', async () => {
    const listener = open();
    const writer = open();
    // The writer stands for another node: its appends are ordered after the listener's starting point only once the
    // listener follows the workspace (its starting point is read when it starts watching, on its own connection).
    await Promise.all([listener.ping(), writer.ping()]);
    const { seen } = collect(listener, 'ws-gap');
    await eventually(async () => expect(await shardChannels()).toContain(`${prefix}:{ws-gap}:feed`));
    const first = await append(writer, 'ws-gap', 1);
    await eventually(() => expect(seen).toEqual(first));
    // An entry that reaches the log but whose message never arrives (as if dropped on the way).
    const lostId = (await admin.xadd(
      `${prefix}:{ws-gap}:events`,
      '*',
      'e',
      JSON.stringify(event('ws-gap', 2)),
    )) as string;
    const third = await append(writer, 'ws-gap', 3);
    await eventually(() =>
      expect(seen.map((e) => e.event_id)).toEqual([first[0]?.event_id, lostId, third[0]?.event_id]),
    );
  });
});

describe('the Redis event feed while Redis does not answer', () => {
  let redis: RedisProcess;
  let store: Store | undefined;
  afterEach(async () => {
    redis.signal('SIGCONT');
    await store?.close();
    await redis.dispose();
  });

  it('starts a watch where the log ended when it was made, however long the store took to start', async () => {
    redis = await startRedisProcess();
    redis.signal('SIGSTOP');
    store = createRedisStore({
      url: redis.url,
      prefix: 'late',
      eventRetention: 1000,
      log: createLogger('silent'),
      startupWaitMs: 300,
      feedLingerMs: 0,
    });
    const seen: EventEnvelope[] = [];
    store.watch('ws', (e) => seen.push(e));
    // Longer than the store waits for its start: a read of where the log ends that gave up here used to be made
    // again once subscribed, after the commit below, and the watch never saw that commit's event.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const committed = store.commit('ws', { reads: [], writes: [], events: [event('ws', 1)] });
    redis.signal('SIGCONT');
    const outcome = await committed;
    expect(outcome.ok).toBe(true);
    await eventually(() => expect(seen.map((e) => e.source_step_sequence)).toEqual([1]));
  });

  it('delivers what the watcher commits once Redis answers, although the read of its starting point gave up', async () => {
    redis = await startRedisProcess();
    store = createRedisStore({
      url: redis.url,
      prefix: 'hung',
      eventRetention: 1000,
      log: createLogger('silent'),
      commandTimeoutMs: 500,
      feedLingerMs: 0,
    });
    await store.ping();
    redis.signal('SIGSTOP');
    const seen: EventEnvelope[] = [];
    store.watch('ws', (e) => seen.push(e));
    // Longer than a command may take: the read of where the log ends gives up. It used to be made again only once
    // the subscription was confirmed, after the commit below, and the watch never saw that commit's event.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    redis.signal('SIGCONT');
    const acknowledged: number[] = [];
    for (let n = 1; n <= 3; n++) {
      const outcome = await store.commit('ws', { reads: [], writes: [], events: [event('ws', n)] });
      if (outcome.ok) acknowledged.push(n);
    }
    expect(acknowledged).toEqual([1, 2, 3]);
    await eventually(() => expect(seen.map((e) => e.source_step_sequence)).toEqual([1, 2, 3]));
  });
});

describe('the Redis event feed while its subscription is refused', () => {
  let redis: RedisProcess;
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await redis.dispose();
  });

  it('delivers the log on a read-back, then goes live once the subscription is allowed', async () => {
    redis = await startRedisProcess();
    const admin = new Redis(redis.url);
    closers.push(() => admin.disconnect());
    // A user that may run every command on every key but use no channel: its SSUBSCRIBE is refused (NOPERM).
    await admin.call('ACL', 'SETUSER', 'no-channels', 'on', 'nopass', '~*', 'resetchannels', '+@all');
    const subscriber = new Redis(redis.url, { username: 'no-channels', autoResubscribe: false });
    closers.push(() => subscriber.disconnect());
    const store = createRedisStore({ url: redis.url, prefix: 'p', eventRetention: 1000, log: createLogger('silent') });
    closers.push(() => store.close());
    const keys = redisKeys('p');
    const feed = createEventFeed({
      subscriber,
      channel: (ws) => keys.channel(ws),
      readLast: async (ws) => (await admin.xrevrange(keys.events(ws), '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0',
      readAfter: async (ws, after, count) =>
        ((await admin.xrange(keys.events(ws), `(${after}`, '+', 'COUNT', count)) as StreamEntry[]).flatMap(
          (entry) => envelopeOf(keys.events(ws), entry, () => undefined) ?? [],
        ),
      log: createLogger('silent'),
    });
    closers.push(() => feed.close());
    await feed.subscribed;
    const seen: number[] = [];
    feed.watch('ws', (e) => seen.push(e.source_step_sequence ?? 0));
    await eventually(async () => {
      const [refused] = (await admin.call('ACL', 'LOG', '1')) as [string, string][][];
      expect(JSON.stringify(refused)).toContain('p:{ws}:feed');
    });
    for (let n = 1; n <= 3; n++) await store.commit('ws', { reads: [], writes: [], events: [event('ws', n)] });
    // What a Cluster node does every 2 s: a read-back with no live message to tell of a gap.
    feed.resync('test');
    await eventually(() => expect(seen).toEqual([1, 2, 3]));
    await admin.call('ACL', 'SETUSER', 'no-channels', 'allchannels');
    await eventually(async () =>
      expect(await admin.pubsub('SHARDNUMSUB', keys.channel('ws'))).toEqual([keys.channel('ws'), 1]),
    );
    await store.commit('ws', { reads: [], writes: [], events: [event('ws', 4)] });
    await eventually(() => expect(seen).toEqual([1, 2, 3, 4]));
  });
});
