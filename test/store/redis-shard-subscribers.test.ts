import { Cluster } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RESUBSCRIBED_EVENT, shardSubscribersOf } from '../../server/src/store/redis/shard-subscribers.ts';
import { parseNode } from '../../server/src/store/redis/connect.ts';
import type { SlotRange } from '../helpers/redis-cluster.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { testClusterNodes } from '../helpers/stores.ts';

/**
 * What the store relies on inside ioredis to find a silent shard subscriber connection and have it replaced
 * (server/src/store/redis/shard-subscribers.ts). An ioredis upgrade that moves any of it fails here, by name, instead
 * of leaving a node deaf to a shard with nothing said.
 */
describe("ioredis' shard subscriber connections, as the store reaches them", () => {
  const opened: Cluster[] = [];
  const open = (options: ConstructorParameters<typeof Cluster>[1] = {}) => {
    const cluster = new Cluster(testClusterNodes().map(parseNode), { slotsRefreshInterval: 1000, ...options });
    opened.push(cluster);
    return cluster;
  };
  afterEach(() => {
    for (const cluster of opened.splice(0)) cluster.disconnect();
  });

  it('lists the connection per master, which answers a PING while subscribed and is replaced once it ends', async () => {
    const subscriber = open({ shardedSubscribers: true });
    const publisher = open();
    const list = shardSubscribersOf(subscriber);
    if (!list) throw new Error('ioredis no longer holds its shard subscribers in cluster.shardedSubscribers');
    const channel = `${uniquePrefix()}:{shard-subscribers}:feed`;
    await subscriber.ssubscribe(channel);
    const slot = Number(await publisher.call('CLUSTER', 'KEYSLOT', channel));
    const ranges = (await publisher.call('CLUSTER', 'SLOTS')) as SlotRange[];
    const [host, port] = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2] ?? [];
    const master = `${host}:${port}`;

    const first = list().find((shard) => shard.node === master)?.connection;
    expect(first?.status).toBe('ready');
    // RESP2 subscribed mode: a PING is allowed and answered with a 'pong' push, which ioredis resolves.
    expect(await first?.ping()).toEqual(['pong', '']);

    const resubscribed = new Promise<void>((resolve) => subscriber.once(RESUBSCRIBED_EVENT, () => resolve()));
    first?.disconnect();
    await resubscribed;
    const second = list().find((shard) => shard.node === master)?.connection;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    // The SSUBSCRIBE was sent before the event: a PING behind it answers once it is in effect.
    expect(await second?.ping()).toEqual(['pong', '']);
    const heard = new Promise((resolve) =>
      subscriber.once('smessage', (from: string, message: string) => resolve([from, message])),
    );
    expect(await publisher.spublish(channel, 'after the replacement')).toBe(1);
    expect(await heard).toEqual([channel, 'after the replacement']);
  });

  it('finds nothing to list on a Cluster without sharded subscribers', () => {
    expect(shardSubscribersOf(open({ lazyConnect: true }))).toBeUndefined();
  });
});
